#!/usr/bin/env python3
"""Draw the app's PNG icons (src/barbu/web/static/icons) from its SVG, with Chromium through Playwright.

    .venv/bin/python scripts/build-icons.py [--chromium /usr/bin/chromium]

icon.svg is the source (drawn for barbu: two cards and a crown on the felt). The PNGs are what the web
app manifest and iOS ask for: 192 and 512 px with the SVG's rounded corners ("any"), 512 px full
bleed for the masks of Android's launchers ("maskable": the felt fills the square, every shape is
inside the central circle of 80 % a mask keeps), and 180 px full bleed for iOS's home screen, which
rounds the corners itself and shows transparency as black. Run it again after changing icon.svg and
commit the PNGs with it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

ICONS = Path(__file__).resolve().parent.parent / "src" / "barbu" / "web" / "static" / "icons"
FELT = "#0f5132"  # the pages' background (style.css --felt): the square a full-bleed icon fills
# name: (size in px, full bleed)
PNGS = {"icon-192.png": (192, False), "icon-512.png": (512, False), "icon-maskable-512.png": (512, True),
        "apple-touch-icon.png": (180, True)}


def page_for(svg: str, size: int, bleed: bool) -> str:
    """A page that shows the icon at ``size`` px, on the felt when it fills the square."""
    ground = FELT if bleed else "transparent"
    return (f"<!doctype html><style>html,body{{margin:0;background:{ground}}}"
            f"svg{{display:block;width:{size}px;height:{size}px}}</style>{svg}")


def build(chromium: str) -> None:
    from playwright.sync_api import sync_playwright

    svg = (ICONS / "icon.svg").read_text(encoding="utf-8")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True)
        try:
            for name, (size, bleed) in PNGS.items():
                page = browser.new_page(viewport={"width": size, "height": size}, device_scale_factor=1)
                page.set_content(page_for(svg, size, bleed))
                page.screenshot(path=str(ICONS / name), omit_background=not bleed,
                                clip={"x": 0, "y": 0, "width": size, "height": size})
                page.close()
                print(f"{name}: {size}x{size}")
        finally:
            browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="the Chromium to draw with")
    build(parser.parse_args().chromium)


if __name__ == "__main__":
    main()
