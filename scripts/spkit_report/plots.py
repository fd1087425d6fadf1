"""matplotlib, when it imports (HAVE_MPL; without it the tables are still written), and the plot
helpers the sections share: colours, grouped bars, log and ratio axes, legends."""
# Bound either way, so the sections can import them; they draw only when HAVE_MPL.
plt = None
FuncFormatter = None
try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    HAVE_MPL = True
except Exception:  # ImportError, or a broken backend
    HAVE_MPL = False


def kernel_colors(kernels, comparison):
    """Our kernels in distinct colours, comparison kernels in greys (hatched in bar charts)."""
    ours = [k for k in kernels if not comparison(k)]
    theirs = [k for k in kernels if comparison(k)]
    cmap = plt.get_cmap("tab20" if len(ours) > 10 else "tab10")
    colors = {k: cmap(i % cmap.N) for i, k in enumerate(ours)}
    greys = ["#333333", "#777777", "#aaaaaa", "#555555", "#999999", "#cccccc"]
    for i, k in enumerate(theirs):
        colors[k] = greys[i % len(greys)]
    return colors


def grouped_bars(ax, groups, series, value, colors, hatched):
    """Bars of value(group, series) for each group (x) and series (bars within a group)."""
    n = max(len(series), 1)
    width = 0.8 / n
    for i, s in enumerate(series):
        xs, ys = [], []
        for g_i, g in enumerate(groups):
            v = value(g, s)
            if v > 0:
                xs.append(g_i - 0.4 + width * (i + 0.5))
                ys.append(v)
        ax.bar(xs, ys, width=width, label=s, color=colors[s], edgecolor="white" if not hatched(s) else "black",
               linewidth=0.4, hatch="//" if hatched(s) else None)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=30, ha="right")
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)


def plain_log_axis(axis, suffix=""):
    """Log axis labelled 0.5, 1, 2, 5 (plus suffix) instead of matplotlib's 5x10^-1."""
    from matplotlib.ticker import LogLocator, NullFormatter

    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}{suffix}"))
    axis.set_minor_formatter(NullFormatter())


def ratio_axis(ax, values):
    """Ratios: linear from 0 when they span less than 10x, else log with plain labels."""
    values = [v for v in values if v > 0]
    if values and max(values) / min(values) > 10:
        ax.set_yscale("log")
        plain_log_axis(ax.yaxis, "x")
    else:
        ax.set_ylim(0, max(values + [1.0]) * 1.12)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}x"))


def legend_outside(ax, ncol=1, title=None):
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, ncol=ncol, frameon=False, title=title)


def legend_below(ax, n, title=None):
    """For many series: a legend under the axes, so the bars keep the full width."""
    ncol = min(5, max(1, n))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), fontsize=9, ncol=ncol, frameon=False, title=title)
