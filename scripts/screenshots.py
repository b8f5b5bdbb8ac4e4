"""The README's screenshots, made from a seeded home so that they follow the app as it changes.

Usage: ``.venv/bin/python -m scripts.screenshots [--out docs/screenshots]`` (``make screenshots``).

It writes synthetic conversations in English and Traditional Chinese (no real data) as a ChatGPT and a
Claude data export, in those services' own shapes, and imports them through the engine's importers into a
home in a temporary folder, so that the sessions carry the conversations' titles as a user's would. Then,
for each language and theme, it runs itself again in a subprocess: offscreen Qt
(``QT_QPA_PLATFORM=offscreen``), the Fusion style with a light or a dark palette, the WenQuanYi Micro Hei
font (``fonts-wqy-microhei``) for both scripts, ``MEMTRAY_LANG`` for the UI language and ``TZ=UTC`` so the
times shown never change. The app is started as usual (``desktop.app.Memtray``, with a tray) and these
are grabbed, each saved as a PNG of at most 256 colours (small enough to commit):

- ``viewer-<lang>-<theme>.png``: the sessions and a conversation;
- ``search-<lang>-<theme>.png``: the Search tab with a query, the matches marked, while meaning search
  covers only part of the messages (embedding paused, then a later export imported);
- ``quick-search-<lang>-<theme>.png``: Search memory… (the global shortcut's window) with a query;
- ``chat-<lang>-<theme>.png``: a chat window continuing a conversation;
- ``tray-menu-<lang>-<theme>.png``: the tray menu;
- ``compact-<lang>-<theme>.png``: the Compact chooser, which states the limit and what it will do;
- ``welcome-<lang>.png``: the welcome page of an empty home (light only);
- ``no-tray-<lang>.png``: the window that is the app on a desktop without a tray (light only).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = ("en", "zh_TW")
THEMES = ("light", "dark")
FONT = "WenQuanYi Micro Hei"

CONVERSATIONS: dict[str, list[tuple[str, str]]] = {
    "kyoto-trip": [
        ("user", "Help me plan four days in Kyoto in early April. I want temples, but not only temples."),
        (
            "assistant",
            "Early April is cherry-blossom season, so book rooms now. A rough plan:\n"
            "Day 1: Higashiyama — Kiyomizu-dera at opening time, then Sannenzaka and Gion at dusk.\n"
            "Day 2: Arashiyama bamboo grove early, Tenryū-ji, a boat on the Hozu river.\n"
            "Day 3: Fushimi Inari before 8 am, then Nishiki market and a cooking class.\n"
            "Day 4: a day trip to Nara, or the Philosopher's Path and Ginkaku-ji.",
        ),
        ("user", "Which temples need tickets booked in advance?"),
        (
            "assistant",
            "Most temples sell tickets at the gate. Saihō-ji (the moss temple) needs a reservation "
            "weeks ahead; Katsura Imperial Villa needs one too. Everything else: arrive early instead.",
        ),
        ("user", "What's a realistic daily budget, not counting the hotel?"),
        (
            "assistant",
            "Around ¥9,000–12,000 a day: ¥1,500 for buses and trains (a one-day pass helps), "
            "¥2,000–3,000 in entry fees, and ¥5,000–7,000 for food if you mix markets and one nice dinner.",
        ),
    ],
    "invoices-migration": [
        (
            "user",
            "We need to add a currency column to the invoices table (40 million rows) in Postgres "
            "without downtime. What's the safest order of steps?",
        ),
        (
            "assistant",
            "1. Add the column as nullable with no default (instant).\n2. Deploy code that writes "
            "it for new rows.\n3. Backfill in batches of 10,000 by id, with a pause between batches.\n"
            "4. Add a NOT VALID check constraint, then VALIDATE it.\n5. Only then make the code read it.",
        ),
        ("user", "How long will the backfill take at that batch size?"),
        (
            "assistant",
            "At ~20 ms per batch plus a 50 ms pause, 4,000 batches take under five minutes. "
            "Watch replication lag and make the pause longer if it grows.",
        ),
    ],
    "sourdough": [
        ("user", "My sourdough starter stopped rising after I moved it to the fridge. Is it dead?"),
        (
            "assistant",
            "Almost certainly not: cold just slows it down. Take it out, feed it 1:1:1 twice a day "
            "at room temperature for two days, and it should double within 6 hours again.",
        ),
    ],
    "tainan-weekend": [
        ("user", "幫我規劃台南兩天一夜的行程，想吃小吃，也想看古蹟。"),
        (
            "assistant",
            "第一天：早上到赤崁樓、祀典武廟，中午在國華街吃碗粿和富盛號；下午逛神農街，"
            "傍晚去安平古堡看夕陽，晚餐吃蝦捲。\n第二天：早起吃牛肉湯，上午參觀台南孔廟與林百貨，"
            "下午到奇美博物館，回程前買一盒伴手禮。",
        ),
        ("user", "牛肉湯哪一家比較不用排隊？"),
        (
            "assistant",
            "早上六點前到的話，大多數店家都不太需要排隊；假日八點以後人潮最多。"
            "建議避開連假，或改在平日上午出發。",
        ),
        ("user", "交通怎麼安排比較方便？"),
        ("assistant", "市區景點集中，租一台 YouBike 或機車最方便；去奇美博物館可以搭火車到保安站再步行。"),
    ],
    "book-club": [
        ("user", "讀書會這週讀《原子習慣》第三章，幫我整理重點，大概五點就好。"),
        (
            "assistant",
            "一、習慣是一再重複的小決定。二、先改變身分認同，再改變結果。"
            "三、提示、渴望、回應、獎賞是習慣的四個步驟。四、讓好習慣顯而易見。五、環境比意志力更重要。",
        ),
        ("user", "第四點可以舉一個生活中的例子嗎？"),
        ("assistant", "想多喝水，就把水壺放在書桌最顯眼的位置；想睡前少滑手機，就把充電器移到客廳。"),
    ],
    "tax-filing": [
        ("user", "報稅時扶養父母，可以列舉哪些扣除額？"),
        (
            "assistant",
            "扶養年滿 70 歲的直系尊親屬，免稅額會提高；另外，父母的醫藥費、長期照顧費用，"
            "以及符合資格的保險費，都可以依規定列舉或申報特別扣除額。實際金額請以財政部當年度公告為準。",
        ),
    ],
}
TITLES = {
    "kyoto-trip": "Four days in Kyoto in early April",
    "invoices-migration": "Zero-downtime column on a 40M-row Postgres table",
    "sourdough": "Sourdough starter after the fridge",
    "tainan-weekend": "台南兩天一夜：小吃與古蹟",
    "book-club": "讀書會：《原子習慣》第三章重點",
    "tax-filing": "報稅扶養父母的扣除額",
}
# A later export, imported while embedding is paused: meaning search covers only part of the messages.
LATER: dict[str, list[tuple[str, str]]] = {
    "trip-budget": [
        ("user", "Make me a spreadsheet layout for the Kyoto trip budget: transport, temples, food."),
        (
            "assistant",
            "Columns: Day, Category, Item, Planned (¥), Spent (¥), Note. One row per ticket or meal; "
            "a total per day at the bottom, and one cell comparing the budget with what was spent.",
        ),
    ],
    "beef-soup": [
        ("user", "台南牛肉湯的湯頭為什麼是清的？"),
        ("assistant", "因為是用牛骨熬的清湯，生牛肉片直接用滾燙的湯沖熟，所以湯頭清澈、肉質鮮嫩。"),
    ],
}
TITLES |= {"trip-budget": "Kyoto trip budget spreadsheet", "beef-soup": "台南牛肉湯為什麼是清湯"}
ENGLISH = ("kyoto-trip", "invoices-migration", "sourdough")
SESSION = {"en": "kyoto-trip", "zh_TW": "tainan-weekend"}
SEARCH = {"en": "temples budget", "zh_TW": "牛肉湯"}
QUICK = {"en": "backfill replication", "zh_TW": "扣除額"}


def chatgpt_export(conversations: dict[str, list[tuple[str, str]]], start_s: float) -> list[dict[str, Any]]:
    """``conversations`` as a ChatGPT data export's ``conversations.json``: each a tree of nodes in
    ``mapping`` (a root without a message, then one node per message) and the ``current_node``."""
    export = []
    for n, (slug, turns) in enumerate(conversations.items()):
        begin = start_s + n * 2 * 86_400
        mapping: dict[str, Any] = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
        parent = "root"
        for i, (role, text) in enumerate(turns):
            node = f"{slug}-{i}"
            mapping[parent]["children"].append(node)
            mapping[node] = {
                "id": node,
                "parent": parent,
                "children": [],
                "message": {
                    "id": node,
                    "author": {"role": role, "name": None, "metadata": {}},
                    "create_time": begin + i * 90,
                    "content": {"content_type": "text", "parts": [text]},
                    "status": "finished_successfully",
                    "recipient": "all",
                    "metadata": {},
                },
            }
            parent = node
        export.append(
            {
                "id": f"6750{n:04x}-{slug}",
                "conversation_id": f"6750{n:04x}-{slug}",
                "title": TITLES[slug],
                "create_time": begin,
                "update_time": begin + len(turns) * 90,
                "mapping": mapping,
                "current_node": parent,
            }
        )
    return export


def claude_export(conversations: dict[str, list[tuple[str, str]]], start_s: float) -> list[dict[str, Any]]:
    """``conversations`` as a Claude data export's ``conversations.json``."""

    def iso(seconds: float) -> str:
        return time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime(seconds))

    export = []
    for n, (slug, turns) in enumerate(conversations.items()):
        begin = start_s + n * 2 * 86_400
        messages = [
            {
                "uuid": f"{slug}-{i}",
                "text": text,
                "content": [{"type": "text", "text": text}],
                "sender": "human" if role == "user" else "assistant",
                "created_at": iso(begin + i * 90),
                "updated_at": iso(begin + i * 90),
                "attachments": [],
                "files": [],
            }
            for i, (role, text) in enumerate(turns)
        ]
        export.append(
            {
                "uuid": f"c1a0{n:04x}-{slug}",
                "name": TITLES[slug],
                "created_at": iso(begin),
                "updated_at": iso(begin + len(turns) * 90),
                "chat_messages": messages,
            }
        )
    return export


def write_exports(folder: Path) -> dict[str, Path]:
    """The exports, by name: ``chatgpt`` (the English conversations), ``claude`` (the Chinese ones) and
    ``later-chatgpt``/``later-claude`` (one conversation each, imported later while embedding is paused)."""
    today = time.time() // 86_400 * 86_400 + 9 * 3600  # 09:00 UTC today
    english = {k: v for k, v in CONVERSATIONS.items() if k in ENGLISH}
    chinese = {k: v for k, v in CONVERSATIONS.items() if k not in ENGLISH}
    exports = {
        "chatgpt": chatgpt_export(english, today - 13 * 86_400),
        "claude": claude_export(chinese, today - 12 * 86_400),
        "later-chatgpt": chatgpt_export({"trip-budget": LATER["trip-budget"]}, today - 3600),
        "later-claude": claude_export({"beef-soup": LATER["beef-soup"]}, today - 1800),
    }
    paths = {}
    for name, export in exports.items():
        path = folder / name / "conversations.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(export, ensure_ascii=False, indent=1), encoding="utf-8")
        paths[name] = path
    return paths


def import_export(memory: Any, kind: str, path: Path) -> dict[str, str]:
    """Import one export as ``memtray import`` does; the sessions' ids by title."""
    from engine.importers import readers

    result = readers()[kind](path, None)
    memory.import_sessions(result.sessions)
    return {item.title or item.session: item.session for item in result.sessions}


def seed(home: Path, exports: dict[str, Path]) -> dict[str, str]:
    """The home: the two exports imported through the engine (with the hash embedder), every message
    embedded; the sessions' ids by slug."""
    from engine import Memory
    from engine.embedders.hashing import HashEmbedder

    mem = Memory.open(home, embedder=HashEmbedder())
    try:
        ids = import_export(mem, "chatgpt", exports["chatgpt"]) | import_export(
            mem, "claude", exports["claude"]
        )
        mem.wait_idle(120)
    finally:
        mem.close()
    return {slug: ids[title] for slug, title in TITLES.items() if title in ids}


def palette(theme: str) -> Any:
    from PySide6.QtGui import QColor, QPalette

    if theme == "light":
        return None
    p = QPalette()
    role = QPalette.ColorRole
    colours = {
        role.Window: "#2b2d31",
        role.WindowText: "#e6e6e6",
        role.Base: "#1f2023",
        role.AlternateBase: "#26282c",
        role.Text: "#e6e6e6",
        role.Button: "#34363b",
        role.ButtonText: "#e6e6e6",
        role.Highlight: "#3d7bd9",
        role.HighlightedText: "#ffffff",
        role.ToolTipBase: "#34363b",
        role.ToolTipText: "#e6e6e6",
        role.PlaceholderText: "#8a8d93",
        role.Mid: "#45474d",
        role.Midlight: "#3a3c41",
        role.Dark: "#18191b",
        role.Light: "#4a4c52",
        role.Link: "#7fb0ff",
    }
    for r, c in colours.items():
        p.setColor(r, QColor(c))
    for r in (role.Text, role.WindowText, role.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, r, QColor("#7a7c80"))
    return p


def wait(app: Any, ready: Callable[[], bool], seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not ready():
        if time.monotonic() > deadline:
            raise TimeoutError("the app did not get there in time")
        app.processEvents()
        time.sleep(0.01)
    for _ in range(20):  # let layouts and paints settle
        app.processEvents()


def save(widget: Any, path: Path) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage

    image = (
        widget.grab()
        .toImage()
        .convertToFormat(QImage.Format.Format_Indexed8, Qt.ImageConversionFlag.ThresholdDither)
    )
    if not image.save(str(path), "PNG", 0):
        raise OSError(f"could not write {path}")


def compile_translations(folder: Path) -> Path:
    """The app's ``.ts`` files compiled to ``.qm`` in ``folder`` (so a stale ``.qm`` is never shown)."""
    lrelease = shutil.which("pyside6-lrelease", path=str(Path(sys.executable).parent)) or "pyside6-lrelease"
    folder.mkdir(parents=True, exist_ok=True)
    for ts in sorted((ROOT / "desktop" / "translations").glob("*.ts")):
        subprocess.run([lrelease, "-silent", str(ts), "-qm", str(folder / f"{ts.stem}.qm")], check=True)
    return folder


def start(language: str, theme: str, home: Path, translations: Path, *, tray: bool) -> tuple[Any, Any]:
    """In this process: the application and memtray started on ``home`` (with a tray or without)."""
    from desktop import refguard

    refguard.install()
    from PySide6.QtGui import QFont, QFontDatabase
    from PySide6.QtWidgets import QApplication

    from desktop import i18n
    from desktop.app import Memtray
    from engine.paths import Paths

    app = QApplication(sys.argv[:1])
    if FONT not in QFontDatabase.families():
        raise SystemExit(
            f"the {FONT} font is missing (install fonts-wqy-microhei): Chinese would show as boxes"
        )
    app.setStyle("Fusion")
    app.setFont(QFont(FONT, 10))
    dark = palette(theme)
    if dark is not None:
        app.setPalette(dark)
    assert i18n.install(app, language, translations) == language
    memtray = Memtray(app, Paths.resolve(home), tray_available=tray)
    memtray.start()
    wait(app, lambda: memtray.state.memory is not None)
    return app, memtray


def shoot(language: str, theme: str, home: Path, out: Path, translations: Path, exports: Path) -> None:
    """In this process: start the app on the imported ``home`` and save each window's picture to ``out``."""
    from desktop.hotkeys import ShortcutStatus

    app, memtray = start(language, theme, home, translations, tray=True)
    wait(app, lambda: bool(memtray.state.snapshot.sessions))
    memtray.state.semantic = False  # the hash embedder's "meaning" is noise: show what keywords find
    tag = f"{language}-{theme}"
    ids = json.loads((exports / "sessions.json").read_text(encoding="utf-8"))
    session = ids[SESSION[language]]

    viewer = memtray.show_viewer("conversation")
    viewer.resize(1360, 660)
    viewer.browser.setSizes([640, 720])  # room for the sessions' titles
    viewer.sessions.select(session)
    wait(app, lambda: viewer.conversation.model.session == session and not viewer.conversation.settling)
    model = viewer.conversation.model
    viewer.conversation.list.setCurrentIndex(model.index(max(0, model.rowCount() - 3), 0))
    save(viewer, out / f"viewer-{tag}.png")

    quick = memtray.show_quick_search()
    quick.set_shortcut_status(ShortcutStatus("active", "Ctrl+Alt+M"))  # as on X11, Windows and macOS
    quick.resize(720, 420)
    answers: list[object] = []
    quick.search_did_finish.connect(answers.append)
    quick.box.setText(QUICK[language])
    wait(app, lambda: bool(answers))
    save(quick, out / f"quick-search-{tag}.png")
    quick.hide()

    chat = memtray.show_chat(session)
    assert chat is not None
    loaded: list[int] = []
    chat.history_did_load.connect(loaded.append)
    chat.resize(720, 560)
    wait(app, lambda: bool(loaded))
    save(chat, out / f"chat-{tag}.png")
    chat.hide()

    chooser = memtray.show_chooser("compact")
    chooser.resize(760, 520)
    chosen = ids["invoices-migration" if language == "en" else "book-club"]
    chooser.sessions.select(chosen)
    wait(app, lambda: chooser.sessions.current_session() == chosen)
    save(chooser, out / f"compact-{tag}.png")
    chooser.hide()

    tray = memtray.tray
    assert tray is not None
    tray.rebuild()
    tray.menu.adjustSize()
    save(tray.menu, out / f"tray-menu-{tag}.png")

    # A later export imported while embedding is paused: meaning search covers part of the messages.
    memory = memtray.state.memory
    memory.pause_embedding()
    later = "later-chatgpt" if language == "en" else "later-claude"
    import_export(memory, "chatgpt" if language == "en" else "claude", exports / later / "conversations.json")
    memtray.state.refresh()
    memtray.state.semantic = True
    viewer.present("search")
    viewer.search.set_semantic_available(True)
    viewer.search.match.setCurrentIndex(viewer.search.match.findData("hybrid"))
    found: list[object] = []
    viewer.search.search_did_finish.connect(found.append)
    viewer.search.box.setText(SEARCH[language])
    viewer.search.search()
    wait(app, lambda: bool(found))
    save(viewer, out / f"search-{tag}.png")
    memtray.quit()


def shoot_alone(language: str, theme: str, home: Path, out: Path, translations: Path, *, tray: bool) -> None:
    """The welcome page (an empty home, with a tray) or the window that is the app without a tray."""
    app, memtray = start(language, theme, home, translations, tray=tray)
    if tray:
        viewer = memtray.show_viewer("conversation")
        viewer.resize(900, 600)
        wait(app, lambda: viewer.welcoming)
        save(viewer, out / f"welcome-{language}.png")
    else:
        wait(app, lambda: bool(memtray.state.snapshot.sessions))
        viewer = memtray.viewer
        assert viewer is not None and viewer.is_main_window
        viewer.resize(1240, 600)
        viewer.browser.setSizes([600, 640])
        session = json.loads((home.parent / "exports" / "sessions.json").read_text(encoding="utf-8"))[
            SESSION[language]
        ]
        viewer.sessions.select(session)
        wait(app, lambda: viewer.conversation.model.session == session and not viewer.conversation.settling)
        save(viewer, out / f"no-tray-{language}.png")
    memtray.quit()


def run_shot(mode: str, language: str, theme: str, home: Path, out: Path, tmp: Path) -> None:
    """Run this script again for one shot ``mode`` (``all``, ``welcome`` or ``no-tray``) in a clean
    environment: offscreen, the language, the hash embedder, UTC, a throwaway user home."""
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "MEMTRAY_LANG": language,
        "MEMTRAY_EMBEDDER": "hash",
        "TZ": "UTC",
        "HOME": str(tmp / "user"),  # no real agents' folders or settings
    }
    env.pop("GEMINI_API_KEY", None)
    command = [sys.executable, "-m", "scripts.screenshots", "--shoot", mode, language, theme]
    command += [str(home), str(out), str(tmp)]
    subprocess.run(command, env=env, cwd=ROOT, check=True)
    print(f"{mode} {language} {theme}: done")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--shoot", nargs=6, help=argparse.SUPPRESS)  # mode language theme home out tmp
    args = parser.parse_args()
    if args.shoot:
        mode, language, theme, home, out, tmp = args.shoot
        translations, exports = Path(tmp) / "translations", Path(tmp) / "exports"
        if mode == "all":
            shoot(language, theme, Path(home), Path(out), translations, exports)
        else:
            shoot_alone(language, theme, Path(home), Path(out), translations, tray=mode == "welcome")
        return
    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.glob("*.png"):
        old.unlink()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        written = write_exports(tmp / "exports")
        template = tmp / "template"
        ids = seed(template, written)
        (tmp / "exports" / "sessions.json").write_text(json.dumps(ids), encoding="utf-8")
        compile_translations(tmp / "translations")
        for language in LANGUAGES:
            for theme in THEMES:
                home = tmp / f"{language}-{theme}"
                shutil.copytree(template, home)
                run_shot("all", language, theme, home, args.out, tmp)
            home = tmp / f"{language}-no-tray"
            shutil.copytree(template, home)
            run_shot("no-tray", language, "light", home, args.out, tmp)
            run_shot("welcome", language, "light", tmp / "user" / ".memtray", args.out, tmp)  # empty
    total = 0
    for path in sorted(args.out.glob("*.png")):
        total += path.stat().st_size
        print(f"{path.relative_to(ROOT)}  {path.stat().st_size // 1024} KiB")
    print(f"total {total // 1024} KiB")


if __name__ == "__main__":
    main()
