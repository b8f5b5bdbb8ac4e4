"""Realistic long assistant replies, generated (deterministic per seed), and questions answered past their
first 2,000 characters.

:func:`reply` writes what a ChatGPT or Claude Code reply looks like: markdown headings, prose paragraphs,
bullet lists, fenced code blocks (Python, shell, SQL) and, in some, Traditional Chinese paragraphs; from
1,500 to 20,000 characters. :data:`NEEDLES` are facts each placed deep in such a reply (after
:data:`NEEDLE_AFTER` characters) with a question that asks for it in other words (few shared keywords):
what a search by meaning finds only when the whole message is embedded. Used by ``bench.passages`` and by
the tests of :mod:`engine.semantic.passages`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

NEEDLE_AFTER = 2_500
"""Each needle's fact starts after this many characters of its reply."""

_TOPICS = [
    "the build pipeline",
    "the caching layer",
    "the retry policy",
    "the authentication flow",
    "the migration script",
    "the logging setup",
    "the test fixtures",
    "the deployment manifest",
    "the rate limiter",
    "the configuration loader",
]
_VERBS = ["refactor", "simplify", "document", "benchmark", "split", "rename", "validate", "profile"]
_PROSE = [
    "Before changing {t}, it helps to look at how it is wired today: each call goes through a thin wrapper "
    "that adds a timeout and a log line, and the wrapper is the only place that knows about the defaults.",
    "A safer way to {v} {t} is to do it in two steps: first add the new path beside the old one behind a "
    "flag, then switch the callers over one module at a time and delete the old path once nothing uses it.",
    "Keep in mind that {t} is read at start-up, so a change to it needs a restart; if you want it to take "
    "effect at run time you would have to watch the file and reload it, which adds more moving parts.",
    "The error you saw comes from the order of initialisation: {t} is imported before the settings are "
    "parsed, so it captures the default value. Moving the import into the function fixes it.",
    "If you {v} {t}, also update the README and the changelog, and add a test that fails without the "
    "change; reviewers will ask for it, and it protects the behaviour from the next refactor.",
    "There are trade-offs here. Doing more work up front makes {t} faster later, but it also makes the "
    "first request slower and the memory footprint bigger, which matters on small machines.",
    "In practice the simplest fix is usually the right one: {v} {t} where it is defined, keep the public "
    "interface the same, and let the type checker tell you which call sites need attention.",
]
_BULLETS = [
    "- check that {t} has a test for the empty case",
    "- {v} {t} behind a feature flag first",
    "- measure before and after with the same data",
    "- keep the old behaviour available for one release",
    "- log the decision in the changelog",
    "- ask for a second review on anything touching {t}",
]
_CODE = [
    "```python\ndef load_settings(path: Path) -> Settings:\n    data = json.loads(path.read_text())\n"
    "    return Settings(**{{k: v for k, v in data.items() if k in FIELDS}})\n\n\n"
    "def retry(call, attempts=3, delay=0.5):\n    for n in range(attempts):\n        try:\n"
    "            return call()\n        except TimeoutError:\n            time.sleep(delay * 2**n)\n"
    "    raise RuntimeError('gave up after %d attempts' % attempts)\n```",
    "```bash\nset -euo pipefail\npython -m venv .venv && . .venv/bin/activate\n"
    "pip install -r requirements.txt\npytest -q -x tests/ --maxfail=1\n"
    'docker build -t app:"$(git rev-parse --short HEAD)" .\n```',
    "```sql\nCREATE INDEX IF NOT EXISTS ix_orders_customer ON orders(customer_id, created_at);\n"
    "SELECT c.name, COUNT(o.id) AS n FROM customers c JOIN orders o ON o.customer_id = c.id\n"
    "WHERE o.created_at >= date('now', '-30 days') GROUP BY c.id ORDER BY n DESC LIMIT 20;\n```",
    "```python\nclass Cache:\n    def __init__(self, size: int = 1024) -> None:\n"
    "        self._data: OrderedDict[str, bytes] = OrderedDict()\n        self._size = size\n\n"
    "    def get(self, key: str) -> bytes | None:\n        value = self._data.get(key)\n"
    "        if value is not None:\n            self._data.move_to_end(key)\n        return value\n```",
]
_CJK = [
    "另外要注意，{t} 在啟動時就會被讀取，所以修改之後需要重新啟動服務；如果想要在執行期間生效，"
    "就必須監看設定檔並重新載入，這會增加系統的複雜度。",
    "我建議先在測試環境驗證這個改動，確認日誌裡沒有新的錯誤訊息，再逐步推到正式環境。"
    "每一步都要保留回復的方法，萬一出問題可以馬上退回。",
    "這個問題的根本原因是初始化的順序：模組在設定解析之前就被匯入了，所以拿到的是預設值。"
    "把匯入移到函式裡面就可以解決。",
]


@dataclass(frozen=True)
class Needle:
    """A fact placed deep in a long reply, and a question asking for it in other words."""

    fact: str
    question: str


NEEDLES = [
    Needle(
        "We agreed to move the nightly database backups to object storage in the Frankfurt region, "
        "encrypted with a key that only the operations team holds.",
        "where do the night-time copies of our data get stored now?",
    ),
    Needle(
        "The flaky integration test was caused by the container clock drifting by several seconds, so the "
        "signed tokens looked expired; syncing time with chrony before the suite fixed it.",
        "why did that test keep failing randomly and how was it solved?",
    ),
    Needle(
        "For the onboarding email we settled on sending it two days after sign-up instead of immediately, "
        "because open rates were much higher once people had tried the product.",
        "when should the welcome message go out to new users?",
    ),
    Needle(
        "My recommendation for the laptop is the model with 32 GB of memory, since the Docker builds and "
        "the local language model both swap heavily with only 16 GB.",
        "how much RAM should the new computer have?",
    ),
    Needle(
        "The memory leak came from an event listener registered on every page view and never removed; "
        "after unsubscribing in the cleanup hook the heap stayed flat for a whole day.",
        "what was making the app use more and more memory over time?",
    ),
    Needle(
        "We will price the team plan at twelve euros per seat per month, with the first three seats free "
        "for open-source projects.",
        "how much does the plan for groups cost?",
    ),
    Needle(
        "我們最後決定把年度員工旅遊改到花蓮，因為交通比較方便，而且預算可以控制在每人八千元以內。",
        "公司今年出遊的地點選在哪裡？",
    ),
    Needle(
        "醫生說我的膝蓋是韌帶輕微拉傷，建議休息兩週，先不要跑步，可以改成游泳維持體能。",
        "腳受傷之後可以做什麼運動？",
    ),
]


def reply(rng: random.Random, chars: int, cjk: bool = False) -> str:
    """A long reply of about ``chars`` characters (markdown, prose, lists, code; CJK paragraphs with
    ``cjk``)."""
    parts: list[str] = []
    size = 0
    while size < chars:
        topic, verb = rng.choice(_TOPICS), rng.choice(_VERBS)
        kind = rng.random()
        if kind < 0.1:
            block = f"## {verb.capitalize()} {topic}"
        elif kind < 0.5:
            block = " ".join(rng.choice(_PROSE).format(t=topic, v=verb) for _ in range(rng.randint(1, 3)))
        elif kind < 0.65:
            block = "\n".join(rng.choice(_BULLETS).format(t=topic, v=verb) for _ in range(rng.randint(3, 5)))
        elif kind < 0.85:
            block = rng.choice(_CODE).replace("{{", "{").replace("}}", "}")
        else:
            block = (
                "".join(rng.choice(_CJK).format(t=topic) for _ in range(rng.randint(1, 3)))
                if cjk
                else rng.choice(_PROSE).format(t=topic, v=verb)
            )
        parts.append(block)
        size += len(block) + 2
    return "\n\n".join(parts)


def with_needle(rng: random.Random, needle: Needle, chars: int) -> str:
    """A reply of about ``chars`` characters holding ``needle.fact`` after :data:`NEEDLE_AFTER`
    characters (somewhere in its second half or later)."""
    cjk = any("\u4e00" <= c <= "\u9fff" for c in needle.fact)
    head = reply(rng, max(NEEDLE_AFTER, int(chars * rng.uniform(0.4, 0.8))), cjk)
    tail = reply(rng, max(200, chars - len(head)), cjk)
    return head + "\n\n" + needle.fact + "\n\n" + tail


def conversation(rng: random.Random, turns: int, long_share: float = 0.35) -> list[tuple[str, str]]:
    """``turns`` (role, text) pairs of a realistic chat: short user questions, assistant replies of which
    ``long_share`` are long (2,000-20,000 characters, median about 3,300; a fifth of them with CJK
    paragraphs), the others 200-1,500 characters."""
    out: list[tuple[str, str]] = []
    for n in range(turns):
        topic, verb = rng.choice(_TOPICS), rng.choice(_VERBS)
        if n % 2 == 0:
            out.append(("user", f"How should I {verb} {topic}? It keeps getting in the way."))
        elif rng.random() < long_share:
            size = min(20_000, max(2_000, int(2_000 * rng.lognormvariate(0.5, 0.6))))  # median ~3,300
            out.append(("assistant", reply(rng, size, rng.random() < 0.2)))
        else:
            out.append(("assistant", reply(rng, int(rng.uniform(200, 1_500)))))
    return out
