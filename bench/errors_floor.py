"""Measure the error memory's similarity floor for an embedder: ``python -m bench.errors_floor [EMBEDDER]``.

30 error records of 12 tools; for each, 2 queries that should find it (a failing tool's error text, or how
a model would ask) and 1 query about another problem that no record covers. Prints, for related queries,
the similarity of the record they should find, and for unrelated queries the best similarity of any
record; then, per candidate floor, how many related queries still find their record and how many
unrelated ones return anything. EMBEDDER: ``hash`` (default), ``use`` or ``e5`` when installed.
"""

from __future__ import annotations

import sys
import tempfile

import numpy as np

from engine import Memory
from engine.embedders import Embedder
from engine.embedders.hashing import HashEmbedder
from engine.errormemory import ErrorMemory, vectors
from engine.errormemory.records import tagged_keywords
from engine.errormemory.vectors import document_text

# (tool, symptom, cause, keywords, [related queries], unrelated query)
CASES: list[tuple[str, str, str, list[str], list[str], str]] = [
    (
        "fetch_page",
        "request timed out after 30s fetching https://docs.example.com",
        "slow server",
        ["timeout", "http"],
        ["fetch_page failed: context deadline exceeded (Client.Timeout exceeded)", "page fetch times out"],
        "fetch_page failed: x509: certificate has expired",
    ),
    (
        "fetch_page",
        "HTTP 403 Forbidden from cloudflare",
        "bot protection blocks the default user agent",
        ["403", "cloudflare"],
        ["fetch_page failed: status 403 Forbidden", "site blocks us with cloudflare"],
        "fetch_page failed: too many redirects",
    ),
    (
        "fetch_page",
        "page body empty, content rendered by javascript",
        "single page app",
        ["javascript", "spa"],
        ["fetch_page returned an empty body", "the page content needs javascript"],
        "fetch_page failed: unsupported encoding gb2312",
    ),
    (
        "run_shell",
        "permission denied writing /usr/local/bin",
        "not root",
        ["permission", "sudo"],
        [
            "run_shell failed: cp: cannot create /usr/local/bin/tool: Permission denied",
            "no permission to install into /usr/local/bin",
        ],
        "run_shell failed: segmentation fault (core dumped)",
    ),
    (
        "run_shell",
        "command not found: rg",
        "ripgrep not installed",
        ["ripgrep", "missing binary"],
        ["run_shell failed: bash: rg: command not found", "ripgrep is missing"],
        "run_shell failed: disk quota exceeded",
    ),
    (
        "run_shell",
        "pip install fails: externally-managed-environment",
        "Debian PEP 668",
        ["pip", "venv"],
        [
            "error: externally-managed-environment when running pip install",
            "pip refuses to install packages system wide",
        ],
        "run_shell failed: git merge conflict in README.md",
    ),
    (
        "run_shell",
        "npm ERR! ERESOLVE unable to resolve dependency tree",
        "peer dependency conflict",
        ["npm", "peer deps"],
        ["npm ERR! ERESOLVE could not resolve", "npm install dependency conflict"],
        "run_shell failed: docker daemon is not running",
    ),
    (
        "read_file",
        "file not found: config.yaml",
        "wrong working directory",
        ["path", "cwd"],
        ["read_file failed: open config.yaml: no such file or directory", "cannot find config.yaml"],
        "read_file failed: file is a binary PNG image",
    ),
    (
        "read_file",
        "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff",
        "file is UTF-16",
        ["encoding", "utf-16"],
        [
            "read_file failed: 'utf-8' codec can't decode byte 0xff in position 0",
            "decode error reading a utf16 file",
        ],
        "read_file failed: file too large (2 GB)",
    ),
    (
        "write_file",
        "disk full: no space left on device",
        "docker images filled /var",
        ["disk", "space"],
        ["write_file failed: write /tmp/out.json: no space left on device", "the disk is full"],
        "write_file failed: path is a directory",
    ),
    (
        "sql_query",
        "database is locked",
        "another process holds a write transaction",
        ["sqlite", "lock"],
        [
            "sql_query failed: sqlite3.OperationalError: database is locked",
            "sqlite database locked by another writer",
        ],
        "sql_query failed: no such column: user_name",
    ),
    (
        "sql_query",
        "syntax error near LIMIT in subquery",
        "Postgres needs an alias for the subquery",
        ["postgres", "subquery"],
        ["sql_query failed: ERROR: subquery in FROM must have an alias", "postgres subquery alias error"],
        "sql_query failed: connection refused on port 5432",
    ),
    (
        "sql_query",
        "deadlock detected",
        "two transactions update rows in opposite order",
        ["deadlock", "postgres"],
        ["sql_query failed: ERROR: deadlock detected", "transactions deadlock each other"],
        "sql_query failed: value too long for type character varying(20)",
    ),
    (
        "web_search",
        "rate limited: 429 Too Many Requests",
        "free tier quota",
        ["429", "quota"],
        ["web_search failed: HTTP 429 Too Many Requests", "search API rate limit hit"],
        "web_search failed: invalid API key",
    ),
    (
        "web_search",
        "no results for query with quotes",
        "exact phrase too narrow",
        ["query", "phrase"],
        ["web_search returned no results for the quoted phrase", "exact phrase search finds nothing"],
        "web_search failed: TLS handshake timeout",
    ),
    (
        "send_email",
        "SMTP 535 authentication failed",
        "app password required with 2FA",
        ["smtp", "gmail"],
        ["send_email failed: 535 5.7.8 Username and Password not accepted", "gmail smtp login rejected"],
        "send_email failed: attachment exceeds 25 MB",
    ),
    (
        "send_email",
        "message rejected as spam",
        "missing SPF record",
        ["spf", "dns"],
        ["send_email failed: 550 5.7.1 message rejected as spam", "emails bounce as spam"],
        "send_email failed: recipient mailbox full",
    ),
    (
        "git",
        "push rejected: non-fast-forward",
        "remote has new commits",
        ["push", "rebase"],
        [
            "git push failed: ! [rejected] main -> main (non-fast-forward)",
            "push rejected because remote is ahead",
        ],
        "git failed: fatal: not a git repository",
    ),
    (
        "git",
        "fatal: refusing to merge unrelated histories",
        "repository re-initialised",
        ["merge", "history"],
        ["git pull: fatal: refusing to merge unrelated histories", "git will not merge unrelated histories"],
        "git failed: large file exceeds GitHub's 100 MB limit",
    ),
    (
        "python_exec",
        "ModuleNotFoundError: No module named 'numpy'",
        "wrong virtualenv",
        ["venv", "import"],
        [
            "python_exec failed: ModuleNotFoundError: No module named 'numpy'",
            "numpy import fails in the sandbox",
        ],
        "python_exec failed: RecursionError: maximum recursion depth exceeded",
    ),
    (
        "python_exec",
        "MemoryError while loading the CSV",
        "file of 8 GB read at once",
        ["memory", "pandas"],
        ["python_exec failed: MemoryError in pandas.read_csv", "out of memory reading a big csv"],
        "python_exec failed: ZeroDivisionError: division by zero",
    ),
    (
        "python_exec",
        "SSL: CERTIFICATE_VERIFY_FAILED",
        "corporate proxy certificate",
        ["ssl", "proxy"],
        [
            "python_exec failed: ssl.SSLCertVerificationError CERTIFICATE_VERIFY_FAILED",
            "certificate verify failed behind the proxy",
        ],
        "python_exec failed: KeyError: 'user_id'",
    ),
    (
        "calendar",
        "invalid time zone 'PST'",
        "needs an IANA zone name",
        ["timezone", "iana"],
        ["calendar failed: invalid timezone PST", "time zone name not accepted by the calendar"],
        "calendar failed: event overlaps with an existing meeting",
    ),
    (
        "calendar",
        "required parameter end_time missing",
        "all-day events need end_date",
        ["all-day", "parameters"],
        ["calendar failed: missing required parameter end_time", "creating an all day event needs an end"],
        "calendar failed: OAuth token expired",
    ),
    (
        "translate",
        "text too long: 5000 character limit",
        "API maximum per request",
        ["chunking", "limit"],
        ["translate failed: text exceeds 5000 characters", "translation input too long"],
        "translate failed: unsupported language code 'xx'",
    ),
    (
        "image_gen",
        "prompt blocked by safety filter",
        "mentions a real person",
        ["safety", "prompt"],
        [
            "image_gen failed: prompt was blocked by the safety system",
            "image prompt rejected by the safety filter",
        ],
        "image_gen failed: output resolution not supported",
    ),
    (
        "fetch_page",
        "抓取網頁逾時",
        "伺服器回應太慢",
        ["逾時"],
        ["fetch_page failed: 網頁抓取逾時", "抓取網頁一直逾時"],
        "fetch_page failed: 憑證已過期",
    ),
    (
        "run_shell",
        "記憶體不足，程序被終止",
        "容器限制 512MB",
        ["記憶體", "oom"],
        ["run_shell failed: 程序因記憶體不足被終止", "記憶體不足"],
        "run_shell failed: 找不到指令",
    ),
    (
        "read_file",
        "archive is corrupt: unexpected end of zip file",
        "partial download",
        ["zip", "download"],
        ["read_file failed: zipfile.BadZipFile: File is not a zip file", "the zip archive is truncated"],
        "read_file failed: permission denied on /etc/shadow",
    ),
    (
        "web_search",
        "results in the wrong language",
        "region parameter defaulted to us-en",
        ["region", "locale"],
        ["web_search results are in English instead of German", "search returns the wrong locale"],
        "web_search failed: upstream 502 Bad Gateway",
    ),
]


def make_embedder(name: str) -> Embedder:
    if name == "hash":
        return HashEmbedder()
    raise SystemExit(f"unknown embedder {name!r}: this script measures 'hash' until others land")


def similarities(embedder: Embedder) -> None:
    """Raw cosine figures: related queries vs their record, unrelated queries vs the best record."""
    docs = [document_text(s, c, tagged_keywords(kw, s, c)) for _t, s, c, kw, _r, _o in CASES]
    matrix = embedder.encode_documents(docs)
    tools = np.array([case[0] for case in CASES])
    related: list[float] = []
    unrelated: list[float] = []
    unrelated_same_tool: list[float] = []
    for index, case in enumerate(CASES):
        related.extend(float((matrix @ embedder.encode_query(q))[index]) for q in case[4])
        sims = matrix @ embedder.encode_query(case[5])
        unrelated.append(float(sims.max()))
        unrelated_same_tool.append(float(sims[tools == case[0]].max()))
    rel, unr, same = np.array(related), np.array(unrelated), np.array(unrelated_same_tool)
    print(
        f"embedder {embedder.id}: {len(CASES)} records, {len(rel)} related and {len(unr)} unrelated queries"
    )
    print(
        f"related: own record's similarity min {rel.min():.3f} p10 {np.percentile(rel, 10):.3f} "
        f"median {np.median(rel):.3f} max {rel.max():.3f}"
    )
    print(
        f"unrelated: best record min {unr.min():.3f} median {np.median(unr):.3f} max {unr.max():.3f}; "
        f"best record of the same tool median {np.median(same):.3f} max {same.max():.3f}"
    )
    print("floor  related>=floor  unrelated>=floor (any tool / same tool)")
    for floor in np.arange(0.20, 0.41, 0.05):
        print(
            f"{floor:5.2f}  {int((rel >= floor).sum()):3d}/{len(rel)}          "
            f"{int((unr >= floor).sum()):3d}/{len(unr)} / {int((same >= floor).sum()):3d}/{len(same)}"
        )


def end_to_end(embedder: Embedder, floors: list[float]) -> None:
    """ErrorMemory.search itself (vectors, then the keyword fallback) at several floors."""
    print("end to end (search with limit 4; 'found' = the record is among the results):")
    print("floor  related found (no tool / tool)  unrelated returning anything (no tool / tool)")
    family = embedder.id.split("-", 1)[0]
    saved = vectors.FLOORS.get(family)
    with tempfile.TemporaryDirectory() as home:
        mem = Memory.open(home)
        mem.errors = ErrorMemory.open(mem._store, clock=mem.clock, embedder=embedder)
        ids = [
            mem.errors.remember(t, s, "see notes", "resolved", cause=c, keywords=kw).record.id
            for t, s, c, kw, _r, _o in CASES
        ]
        try:
            for floor in floors:
                vectors.FLOORS[family] = floor
                found = [0, 0]
                noise = [0, 0]
                for case, ident in zip(CASES, ids, strict=True):
                    for mode, tool in enumerate((None, case[0])):
                        for query in case[4]:
                            found[mode] += ident in {r.id for r in mem.errors.search(query, tool_name=tool)}
                        noise[mode] += bool(mem.errors.search(case[5], tool_name=tool))
                total = 2 * len(CASES)
                print(
                    f"{floor:5.2f}  {found[0]:3d}/{total} / {found[1]:3d}/{total}               "
                    f"{noise[0]:3d}/{len(CASES)} / {noise[1]:3d}/{len(CASES)}"
                )
        finally:
            if saved is not None:
                vectors.FLOORS[family] = saved
            mem.close()


def main() -> None:
    embedder = make_embedder(sys.argv[1] if len(sys.argv) > 1 else "hash")
    similarities(embedder)
    end_to_end(embedder, [0.20, 0.25, 0.30, 0.35, 0.40])


if __name__ == "__main__":
    main()
