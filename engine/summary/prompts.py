"""The prompts of the summarizer and of the decision model, and the system-prompt guidance text.

These are memtray's own words. The summary prompt carries the previous summary, so one call per chunk
both reads the new messages and merges them in.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from engine.messages import Message
from engine.summary.chunks import Exchange, exchange_numbers, transcript
from engine.summary.schema import Summary
from engine.summary.untrusted import as_data_json, one_line

PRIOR_CONTEXT_GUIDANCE = """\
## Prior Conversation Context
A turn may carry a "Prior summary" block: a JSON digest of this conversation's earlier messages that no \
longer fit in the history you see.
- `key_decisions` are standing rules the user agreed on ("Do: …") or rejected ("Don't: …"). Follow them \
unless the user reopens one.
- `past_discussions` and `current_discussion` are background: use them for continuity, do not recite them.
- If the user asks what you talked about before, answer from the summary in plain prose. Never show the JSON \
or any summary block.
- Keeping the summary up to date is not your job; it is maintained separately."""


def language_rule(reply_lang: str) -> str:
    """How the summary's free text is to be written for a ``reply_lang`` setting."""
    if not reply_lang or reply_lang.lower() == "auto":
        return (
            "Write every text field in the language the conversation itself is mostly written in. "
            "If that language is Chinese, write Traditional Chinese (繁體中文), never Simplified."
        )
    if reply_lang.lower().startswith("zh"):
        return "Write every text field in Traditional Chinese (繁體中文)."
    return f"Write every text field in the language with the tag {reply_lang!r}."


_SKELETON = {
    "key_decisions": ["Do: …", "Don't: …"],
    "past_discussions": [
        {"topic": "…", "description": "…", "direction": "…", "last_discussed": "YYYY-MM-DD HH:mm"}
    ],
    "current_discussion": {"topic": "…", "description": "…", "perspectives": "…", "direction": "…"},
}


def summary_system(previous: Summary, reply_lang: str) -> str:
    """The system prompt of one summary call, with the running summary inside it."""
    previous_json = as_data_json(previous.to_json() if not previous.is_empty else {})
    return f"""\
You keep a compact, rolling memory of one person's long conversation with an assistant. You receive the \
memory so far and a new stretch of the conversation; answer with the updated memory as one JSON object.

How to update it:
1. key_decisions: only standing rules that keep applying (preferences, conventions, agreed ways of \
working). Start each with "Do: " for something agreed or "Don't: " for something rejected; these two \
prefixes are always in English, whatever language the rest is in. Leave out tentative ideas, one-off \
requests and open questions. At most 8: merge near-duplicates, and when a new rule contradicts an old \
one, keep only the new one. An old entry that starts with 要：/不要： or する：/しない： must be rewritten \
with "Do: "/"Don't: " (要/する become "Do: ", 不要/しない become "Don't: ").
2. current_discussion: what the latest messages are about, replacing the previous value. When the topic \
has changed, move the old one into past_discussions; if it ended in a conclusion that will keep \
applying, add that conclusion to key_decisions.
3. past_discussions: at most 8 topics. A topic similar to an existing one updates that entry instead of \
adding a new one; never two entries on one topic; small talk, greetings and thanks never become an \
entry. When there are more than 8, drop those with the oldest last_discussed.
4. description, perspectives and direction: one to three plain sentences each, no markdown.
5. Times: last_discussed is "YYYY-MM-DD HH:mm" and holds the latest time the topic came up; message \
times are on the role lines of the transcript.
6. Record what was said, not these instructions: no part of this prompt may appear in any field.
7. {language_rule(reply_lang)}

Output: exactly one JSON object with all three keys, even when a value is empty ([] for a list, empty \
strings in current_discussion). No prose before or after it.

The memory so far (an empty object when there is none yet):
{previous_json}

The shape of the answer:
{json.dumps(_SKELETON, ensure_ascii=False)}"""


def summary_user(messages: Sequence[Message]) -> str:
    """The user text of one summary call: the chunk as a transcript."""
    return (
        "<conversation>\n"
        f"{transcript(messages)}\n"
        "</conversation>\n\n"
        "Fold this part of the conversation into the memory above and answer with the whole updated "
        "memory as one JSON object."
    )


PRUNE_SYSTEM = """\
You clean up a conversation before it is summarized. You get numbered exchanges (a user message and the \
replies to it) and the current memory's numbered standing rules and past topics.

1. Mark an exchange as noise when it carries nothing worth remembering: a greeting or small talk, a thank \
you, a retry of the same request that a later exchange repeats, or a turn that failed or was cancelled \
without any outcome. Give a confidence between 0 and 1 and a reason: greeting, thanks, retry, failed or \
canceled. When unsure, give a low confidence. Exchange 0, if present, holds replies with no request \
before them: never mark it.
2. List the standing rules (key_decisions) and past topics (past_discussions) that the exchanges clearly \
reverse or make obsolete, by their numbers. List nothing when in doubt.

Answer with JSON only: {"noise":[{"exchange":N,"confidence":0.0,"reason":"…"}],\
"superseded":{"key_decisions":[N],"past_discussions":[N]}}"""


def prune_user(groups: Sequence[Exchange], previous: Summary, retry_hints: set[int], excerpt: int) -> str:
    """The user text of the pruning call."""
    lines = ["Exchanges:"]
    for i, (group, number) in enumerate(zip(groups, exchange_numbers(groups), strict=True)):
        hint = " (its request is repeated later: possibly a retry)" if i in retry_hints else ""
        lines.append(f"--- exchange {number}{hint}\n{transcript(group.messages, excerpt=excerpt)}")
    lines.append("\nStanding rules (key_decisions):")
    lines += [f"{i}. {one_line(d)}" for i, d in enumerate(previous.key_decisions, 1)] or ["(none)"]
    lines.append("\nPast topics (past_discussions):")
    past = previous.past_discussions
    lines += [f"{i}. {one_line(f'{p.topic} — {p.direction}')}" for i, p in enumerate(past, 1)] or ["(none)"]
    return "\n".join(lines)


RELEVANCE_SYSTEM = """\
You decide which parts of a conversation's memory help answer the user's next request. You get the \
request and the memory's numbered entries. Keep an entry when it bears on the request. A general rule \
about language, format, tone or way of working always counts as relevant, whatever the request. When \
unsure, keep the entry.

Answer with JSON only: {"key_decisions":[N…],"past_discussions":[N…],"current_discussion":true|false} \
listing the numbers of the entries to keep."""


def relevance_user(request: str, summary: Summary) -> str:
    """The user text of the relevance call."""
    lines = [f"Request:\n{request.strip() or '(empty)'}", "", "key_decisions:"]
    lines += [f"{i}. {one_line(d)}" for i, d in enumerate(summary.key_decisions, 1)] or ["(none)"]
    lines.append("\npast_discussions:")
    lines += [
        f"{i}. {one_line(f'{p.topic}: {p.description} {p.direction}')}"
        for i, p in enumerate(summary.past_discussions, 1)
    ] or ["(none)"]
    current = summary.current_discussion
    lines.append("\ncurrent_discussion:")
    lines.append(one_line(f"{current.topic}: {current.description}") if current.topic else "(none)")
    return "\n".join(lines)
