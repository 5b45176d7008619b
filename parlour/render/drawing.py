"""A small vector drawing: what a game's picture is made of, written out as SVG (for the
web page) or rasterised to an RGB array (``render_mode="rgb_array"``, recorded videos).

Why our own, and so small: a game's picture is a few dozen rectangles, circles, lines
and labels; one description of it gives the web page and the env the same picture, and
SVG text needs no library at all.  Rasterising uses Pillow (imported only then: the
``render`` extra; matplotlib brings it too), drawing at twice the size and scaling down
for smooth edges.  Coordinates are pixels of the picture, y downwards; a text's ``y`` is
the middle of its line, and ``anchor`` says whether ``x`` is its start, middle or end.
A shape's ``target`` names what clicking it chooses on the web page (``cell-12``,
``card-4``: ``parlour.render.move_targets`` maps each legal move to such names); the
raster ignores it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape

import numpy as np

Colour = tuple[int, int, int]

_ANCHORS = {"start": ("start", "l"), "middle": ("middle", "m"), "end": ("end", "r")}
_SUPERSAMPLE = 2


def hex_colour(colour: Colour) -> str:
    return "#{:02x}{:02x}{:02x}".format(*colour)


@dataclass
class Drawing:
    """A picture ``width`` x ``height`` pixels on a ``background``, built by the methods
    below in painting order, then written with :meth:`svg` or :meth:`rgb`."""

    width: int
    height: int
    background: Colour = (255, 255, 255)
    items: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def rect(self, x: float, y: float, w: float, h: float, fill: Colour | None = None, stroke: Colour | None = None,
             width: float = 1.0, radius: float = 0.0, target: str | None = None) -> Drawing:
        self.items.append(("rect", dict(x=x, y=y, w=w, h=h, fill=fill, stroke=stroke, width=width, radius=radius, target=target)))
        return self

    def circle(self, cx: float, cy: float, r: float, fill: Colour | None = None, stroke: Colour | None = None,
               width: float = 1.0, target: str | None = None) -> Drawing:
        self.items.append(("circle", dict(cx=cx, cy=cy, r=r, fill=fill, stroke=stroke, width=width, target=target)))
        return self

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: Colour, width: float = 1.0) -> Drawing:
        self.items.append(("line", dict(x1=x1, y1=y1, x2=x2, y2=y2, stroke=stroke, width=width)))
        return self

    def polygon(self, points: list[tuple[float, float]], fill: Colour | None = None, stroke: Colour | None = None,
                width: float = 1.0) -> Drawing:
        self.items.append(("polygon", dict(points=list(points), fill=fill, stroke=stroke, width=width)))
        return self

    def text(self, x: float, y: float, text: str, size: float = 14, fill: Colour = (0, 0, 0), anchor: str = "start",
             bold: bool = False) -> Drawing:
        if anchor not in _ANCHORS:
            raise ValueError(f"anchor must be one of {sorted(_ANCHORS)}, got {anchor!r}")
        self.items.append(("text", dict(x=x, y=y, text=str(text), size=size, fill=fill, anchor=anchor, bold=bold)))
        return self

    # ----- output --------------------------------------------------------------------

    def svg(self) -> str:
        """The picture as an SVG document (a string)."""
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
               f'viewBox="0 0 {self.width} {self.height}" font-family="DejaVu Sans, Verdana, sans-serif">',
               f'<rect width="{self.width}" height="{self.height}" fill="{hex_colour(self.background)}"/>']
        for kind, a in self.items:
            paint = _svg_paint(a)
            if kind == "rect":
                out.append(f'<rect x="{a["x"]:g}" y="{a["y"]:g}" width="{a["w"]:g}" height="{a["h"]:g}" rx="{a["radius"]:g}"{paint}/>')
            elif kind == "circle":
                out.append(f'<circle cx="{a["cx"]:g}" cy="{a["cy"]:g}" r="{a["r"]:g}"{paint}/>')
            elif kind == "line":
                out.append(f'<line x1="{a["x1"]:g}" y1="{a["y1"]:g}" x2="{a["x2"]:g}" y2="{a["y2"]:g}"{paint}/>')
            elif kind == "polygon":
                points = " ".join(f"{x:g},{y:g}" for x, y in a["points"])
                out.append(f'<polygon points="{points}"{paint}/>')
            else:
                weight = ' font-weight="bold"' if a["bold"] else ""
                out.append(f'<text x="{a["x"]:g}" y="{a["y"]:g}" font-size="{a["size"]:g}" fill="{hex_colour(a["fill"])}" '
                           f'text-anchor="{_ANCHORS[a["anchor"]][0]}" dominant-baseline="central"{weight}>{escape(a["text"])}</text>')
        out.append("</svg>")
        return "\n".join(out)

    def rgb(self) -> np.ndarray:
        """The picture as ``uint8 (height, width, 3)``, drawn by Pillow."""
        try:
            from PIL import Image, ImageDraw
        except ImportError:  # pragma: no cover - the extra is missing
            raise ImportError("render_mode='rgb_array' needs Pillow: pip install 'parlour[render]'") from None
        k = _SUPERSAMPLE
        image = Image.new("RGB", (self.width * k, self.height * k), self.background)
        pen = ImageDraw.Draw(image)
        for kind, a in self.items:
            width = max(1, round(a.get("width", 1) * k)) if a.get("stroke") is not None else 0
            if kind == "rect":
                box = [a["x"] * k, a["y"] * k, (a["x"] + a["w"]) * k - 1, (a["y"] + a["h"]) * k - 1]
                pen.rounded_rectangle(box, radius=a["radius"] * k, fill=a["fill"], outline=a["stroke"], width=width)
            elif kind == "circle":
                r = a["r"] * k
                box = [a["cx"] * k - r, a["cy"] * k - r, a["cx"] * k + r, a["cy"] * k + r]
                pen.ellipse(box, fill=a["fill"], outline=a["stroke"], width=width)
            elif kind == "line":
                pen.line([a["x1"] * k, a["y1"] * k, a["x2"] * k, a["y2"] * k], fill=a["stroke"], width=max(1, round(a["width"] * k)))
            elif kind == "polygon":
                pen.polygon([(x * k, y * k) for x, y in a["points"]], fill=a["fill"], outline=a["stroke"], width=width)
            else:
                font = _font(round(a["size"] * k))
                pen.text((a["x"] * k, a["y"] * k), a["text"], fill=a["fill"], font=font, anchor=_ANCHORS[a["anchor"]][1] + "m",
                         stroke_width=1 if a["bold"] else 0, stroke_fill=a["fill"])
        image = image.reduce(k) if k > 1 else image
        return np.asarray(image, dtype=np.uint8).copy()


def _svg_paint(a: dict[str, Any]) -> str:
    fill = a.get("fill")
    stroke = a.get("stroke")
    out = f' fill="{hex_colour(fill)}"' if fill is not None else ' fill="none"'
    if stroke is not None:
        out += f' stroke="{hex_colour(stroke)}" stroke-width="{a["width"]:g}"'
    if a.get("target"):
        out += f' class="target" data-target="{escape(a["target"])}"'
    return out


_FONTS: dict[int, Any] = {}


def _font(size: int) -> Any:
    """Pillow's own scalable font at ``size`` pixels: it ships with Pillow, so the same
    picture rasterises to the same pixels on every machine (no system fonts)."""
    font = _FONTS.get(size)
    if font is None:
        from PIL import ImageFont

        font = _FONTS[size] = ImageFont.load_default(size=size)
    return font
