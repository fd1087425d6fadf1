"""The report as Markdown and HTML side by side (Doc), the number formats of its tables, and the
HTML page's style."""
import base64
import html
import os

from .load import num
from .plots import plt


class Doc:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.md = []
        self.html = []
        self.plots = []

    def h(self, level, text, anchor=None):
        self.md.append("#" * level + " " + text + "\n")
        a = f' id="{anchor}"' if anchor else ""
        self.html.append(f"<h{level}{a}>{html.escape(text)}</h{level}>")

    def p(self, text, html_text=None):
        self.md.append(text + "\n")
        self.html.append("<p>" + (html_text if html_text is not None else html.escape(text)) + "</p>")

    def table(self, header, rows, align=None, css=""):
        if not rows:
            return
        align = align or ["l"] + ["r"] * (len(header) - 1)
        sep = ["---:" if a == "r" else ":---" for a in align]
        self.md.append("| " + " | ".join(header) + " |")
        self.md.append("| " + " | ".join(sep) + " |")
        for row in rows:
            self.md.append("| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |")
        self.md.append("")
        cls = f' class="{css}"' if css else ""
        thead = "" if not any(header) else "<thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr></thead>"
        out = [f"<table{cls}>{thead}<tbody>"]
        for row in rows:
            cells = []
            for c, a in zip(row, align):
                style = ' class="num"' if a == "r" else ""
                cells.append(f"<td{style}>{html.escape(str(c))}</td>")
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</tbody></table>")
        self.html.append("\n".join(out))

    def figure(self, fig, name, caption):
        """Saves fig as plots/<name>.png and references it from both documents."""
        os.makedirs(os.path.join(self.out_dir, "plots"), exist_ok=True)
        path = os.path.join(self.out_dir, "plots", name + ".png")
        fig.savefig(path, dpi=110, bbox_inches="tight", metadata={"Software": None})
        plt.close(fig)
        self.plots.append(path)
        self.md.append(f"![{caption}](plots/{name}.png)\n")
        self.md.append(f"*{caption}*\n")
        with open(path, "rb") as f:
            b64 = base64.b64encode(f.read()).decode("ascii")
        self.html.append(
            f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{b64}">'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>"
        )


def fmt_g(v, digits=2):
    v = num(v)
    return f"{v:.{digits}f}" if v else "-"


def fmt_count(n):
    n = num(n)
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= scale * 0.99995:  # 999,999 reads 1.0M, not 1000.0k
            return f"{n / scale:.1f}{unit}"
    return f"{n:.0f}"


CSS = """
body { font-family: -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif; max-width: 1400px;
       margin: 2em auto; padding: 0 1.5em; color: #222; line-height: 1.45; }
h1 { border-bottom: 2px solid #444; padding-bottom: .2em; }
h2 { margin-top: 2.2em; border-bottom: 1px solid #ccc; padding-bottom: .15em; }
table { border-collapse: collapse; margin: .8em 0 1.4em; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; }
th { background: #f1f3f5; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr:nth-child(even) td { background: #fafafa; }
table.wide { display: block; overflow-x: auto; max-width: 100%; }
figure { margin: 1em 0 2em; }
figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: 13px; color: #555; font-style: italic; }
nav { background: #f7f7f9; padding: .6em 1em; border: 1px solid #e3e3e3; font-size: 14px; }
nav a { margin-right: 1.2em; }
.warn { background: #fff4e5; border: 1px solid #f0b37e; padding: .5em 1em; }
"""
