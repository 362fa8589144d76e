"""Render an asciicast v2 recording (docs/demo.cast) as an animated key-frame SVG for
the README: the cast is replayed through the `pyte` terminal emulator (a dev
dependency) and the screen is kept at the end of every demo step (the last frame
showing "k/N" on the caption bar); the SVG shows those frames in turn, `--hold`
seconds each, with CSS animation only (GitHub shows it in an <img>).

    sealscope demo --record docs/demo.cast --size 100x30   # speed 1, about 80 s
    python docs/render_cast.py docs/demo.cast docs/demo.svg
"""

from __future__ import annotations

import argparse
import html
import json
import re
from pathlib import Path

import pyte

CELL_W, CELL_H, FONT = 8.4, 17.0, 14
PALETTE = {  # the 16 named colours pyte reports, as a dark terminal shows them
    "black": "#1e1e1e",
    "red": "#e05561",
    "green": "#8cc265",
    "brown": "#d18f52",
    "blue": "#4aa5f0",
    "magenta": "#c162de",
    "cyan": "#42b3c2",
    "white": "#e6e6e6",
    "brightblack": "#5c6370",
    "brightred": "#ff616e",
    "brightgreen": "#a5e075",
    "brightbrown": "#f0a45d",
    "brightblue": "#4dc4ff",
    "brightmagenta": "#de73ff",
    "brightcyan": "#4cd1e0",
    "brightwhite": "#ffffff",
}
FG, BG = "#e0e0e0", "#121212"
STEP = re.compile(r" (\d+)/(\d+)  — ")
SETTLED = 0.02  # seconds of quiet after which the screen is a whole frame
LEAVE = "\x1b[?1049l"  # the program leaves the alternate screen: its last frame is drawn


def colour(name: str, default: str) -> str:
    if name == "default":
        return default
    if re.fullmatch(r"[0-9a-fA-F]{6}", name):
        return "#" + name.lower()
    return PALETTE.get(name, default)


def key_frames(cast: Path) -> tuple[int, int, list[list[list[pyte.screens.Char]]]]:
    """(width, height, frames): the screen at the end of each step of the demo."""
    lines = cast.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    w, h = head["width"], head["height"]
    screen = pyte.Screen(w, h)
    stream = pyte.Stream(screen)
    last: dict[int, list[list[pyte.screens.Char]]] = {}
    events = [json.loads(x) for x in lines[1:]]
    events = [e for e in events if e[1] == "o"]
    seen: dict[int, list[list[pyte.screens.Char]]] = {}  # any frame, settled or not
    for i, (t, _kind, data) in enumerate(events):
        if LEAVE in data:
            # the program is done drawing: the restore sequences that follow (the
            # kitty keyboard pop among them) are not all understood by pyte
            m = next((STEP.search(row) for row in screen.display if STEP.search(row)), None)
            if m:
                last[int(m.group(1))] = [[screen.buffer[y][x] for x in range(w)] for y in range(h)]
            break
        stream.feed(data)
        m = next((STEP.search(row) for row in screen.display if STEP.search(row)), None)
        if not m:
            continue
        frame = [[screen.buffer[y][x] for x in range(w)] for y in range(h)]
        seen[int(m.group(1))] = frame
        # a frame is complete when the program pauses: Textual writes each frame in
        # one burst, which a pty may hand over in several chunks
        if i + 1 == len(events) or events[i + 1][0] - t >= SETTLED:
            last[int(m.group(1))] = frame
    last = {k: last.get(k, f) for k, f in seen.items()}
    return w, h, [last[k] for k in sorted(last)]


def frame_svg(rows: list[list[pyte.screens.Char]], w: int) -> str:
    out: list[str] = []
    for y, row in enumerate(rows):
        x = 0
        while x < w:
            c = row[x]
            fg, bg = colour(c.fg, FG), colour(c.bg, BG)
            if c.reverse:
                fg, bg = bg, fg
            key = (fg, bg, c.bold, c.italics, c.underscore)
            end = x + 1
            while end < w:
                d = row[end]
                f2, b2 = colour(d.fg, FG), colour(d.bg, BG)
                if d.reverse:
                    f2, b2 = b2, f2
                if (f2, b2, d.bold, d.italics, d.underscore) != key:
                    break
                end += 1
            text = "".join(ch.data or " " for ch in row[x:end])
            if bg != BG:
                out.append(
                    f'<rect x="{x * CELL_W:.1f}" y="{y * CELL_H:.1f}" '
                    f'width="{(end - x) * CELL_W:.1f}" height="{CELL_H:.1f}" '
                    f'fill="{bg}"/>'
                )
            if text.strip():
                style = (
                    (' font-weight="bold"' if c.bold else "")
                    + (' font-style="italic"' if c.italics else "")
                    + (' text-decoration="underline"' if c.underscore else "")
                )
                out.append(
                    f'<text x="{x * CELL_W:.1f}" y="{y * CELL_H + 13:.1f}" '
                    f'fill="{fg}" textLength="{(end - x) * CELL_W:.1f}" '
                    f'lengthAdjust="spacingAndGlyphs"{style} xml:space="preserve">'
                    f"{html.escape(text)}</text>"
                )
            x = end
    return "".join(out)


def render(cast: Path, hold: float = 4.0) -> str:
    w, h, frames = key_frames(cast)
    n = len(frames)
    total = hold * n
    width, height = w * CELL_W, h * CELL_H
    css = [
        f"g.f{{opacity:0;animation:show {total:.1f}s step-end infinite}}",
        f"@keyframes show{{0%{{opacity:1}}{100 / n:.4f}%{{opacity:0}}}}",
    ]
    css += [f"g.f{i}{{animation-delay:{i * hold:.1f}s}}" for i in range(n)]
    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
            f'height="{height:.0f}" viewBox="0 0 {width:.1f} {height:.1f}" '
            f'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" '
            f'font-size="{FONT}">'
        ),
        f"<title>sealscope demo: {n} steps</title>",
        f"<style>{''.join(css)}</style>",
        f'<rect width="100%" height="100%" fill="{BG}"/>',
    ]
    for i, rows in enumerate(frames):
        parts.append(f'<g class="f f{i}">{frame_svg(rows, w)}</g>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cast", type=Path)
    ap.add_argument("svg", type=Path)
    ap.add_argument("--hold", type=float, default=4.0, help="seconds per frame")
    a = ap.parse_args()
    a.svg.write_text(render(a.cast, a.hold), encoding="utf-8")


if __name__ == "__main__":
    main()
