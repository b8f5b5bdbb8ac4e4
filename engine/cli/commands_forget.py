"""CLI command: forget (one message, or a whole session, for good)."""

from __future__ import annotations

import argparse

from engine.cli.output import message_json, open_memory, write, write_json
from engine.errors import AlreadyForgotten, InvalidInput


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser(
        "forget",
        help="forget one archived message (by id), or a whole session, for good",
        description="Forget a message everywhere: history.json, the archive, the search indexes and the "
        "vectors; the session's summary is rebuilt from what remains. memtray remembers only that it was "
        "forgotten (its session, role, time and a keyed hash of its text, never the text), so importing the "
        "same export again or reading a transcript again does not bring it back. With --session, every "
        "message of the session and the session itself. A forget interrupted by a crash is finished the "
        "next time memtray opens; asked for again, it says it is done.",
    )
    p.add_argument("message_id", nargs="?", type=int, default=None, metavar="ID", help="the message's id")
    p.add_argument("--session", default=None, help="forget this whole session instead")
    p.add_argument("--json", action="store_true", help="print what was forgotten as JSON")
    p.set_defaults(handler=cmd_forget)


def cmd_forget(args: argparse.Namespace) -> int:
    if (args.message_id is None) == (args.session is None):
        raise InvalidInput("give a message id or --session ID (one of the two)")
    if args.message_id is not None and args.message_id <= 0:
        raise InvalidInput("a message id is a positive number")
    with open_memory(args) as mem:
        try:
            if args.session is not None:
                result = mem.forget_session(args.session)
                done = {"session": result.session, "messagesForgotten": result.messages_deleted}
                said = f"forgot session {result.session}: {result.messages_deleted} archived messages"
            else:
                message = mem.forget_message(args.message_id)
                done = message_json(message)
                said = (
                    f"forgot message {message.id} of session {message.session}; its summary will be rebuilt"
                )
        except AlreadyForgotten as exc:
            write(f"{exc}: nothing left to do")
            return 0
    if args.json:
        write_json(done)
    else:
        write(said)
    return 0
