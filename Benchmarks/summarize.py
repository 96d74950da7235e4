#!/usr/bin/env python3
"""Turns the Markdown output of `swift package benchmark --format markdown` into the per-action
table of Results.md and an SVG chart of cost per action against N.

    swift package --allow-writing-to-package-directory benchmark --format markdown > results.md
    python3 summarize.py results.md Logs
"""
import math
import re
import sys
from collections import defaultdict

UNITS = {"ns": 1e-3, "μs": 1.0, "us": 1.0, "ms": 1e3, "s": 1e6}
SCALES = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}


LABELS = {
    "one-shots-advance": "one-shots, one advance",
    "one-shots-run": "one-shots, run()",
    "one-timer": "one timer, n ticks",
    "n-timers": "n timers, one tick each",
    "n-timers-half-cancelled": "n timers, half cancelled",
    "debounce": "debounce, n sends",
    "delay": "delay, n sends",
    "receive-on": "receive(on:), n sends",
    "delay-receive-on": "delay + receive(on:), n sends",
    "timer-publisher": "Publishers.Timer, n ticks",
    "n-sleepers": "n tasks sleeping",
    "one-sleeper-n-times": "one task sleeping n times",
}


CLOCK_WORKLOADS = {LABELS["n-sleepers"], LABELS["one-sleeper-n-times"]}


def split_name(name):
    """(implementation, workload label, n) from "Impl_workload_n=N", or from the older
    "Impl workload n=N" form of the first results file."""
    m = re.match(r"^([^_]+)_([^_]+)_n=(\d+)$", name)
    if m:
        return m.group(1), LABELS.get(m.group(2), m.group(2)), int(m.group(3))
    m = re.match(r"^(.*?),? n=(\d+)$", name)
    if not m:
        return None
    label, n = m.group(1), int(m.group(2))
    implementation, workload = label.split(" ", 1) if " " in label else (label, "")
    if implementation == "Floor":
        workload = "one-shots, one advance"  # the floor of that workload
    return implementation, workload.rstrip(","), n


def parse(path):
    """{(implementation, workload, n): (p50 µs per run, p50 mallocs per run)}"""
    results = {}
    name = None
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.strip()
        heading = re.match(r"^###\s+(.*)$", line)
        if heading:
            name = heading.group(1)
            continue
        if not name or not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        metric = cells[0]
        if len(cells) < 4:
            continue
        try:
            p50 = float(cells[3].replace(",", ""))
        except ValueError:
            continue
        parts = split_name(name)
        if not parts:
            continue
        key = parts
        time, mallocs = results.get(key, (None, None))
        unit = re.search(r"\((ns|μs|us|ms|s)\)", metric)
        scale = re.search(r"\(([KMG])\)", metric)
        factor = SCALES[scale.group(1)] if scale else 1
        if metric.startswith("Time (wall clock)") and unit:
            time = p50 * UNITS[unit.group(1)] * factor
        elif metric.startswith("Malloc (total)"):
            mallocs = p50 * factor
        results[key] = (time, mallocs)
    return results


def table(results):
    workloads = sorted({w for (_, w, _) in results})
    implementations = [
        "Tempo", "TempoExecutor", "combine-schedulers", "swift-clocks", "Floor", "SchedulerFloor"
    ]
    names = {
        "Tempo": "Tempo",
        "TempoExecutor": "Tempo, test executor",
        "SchedulerFloor": "Floor behind Combine's API",
    }
    sizes = sorted({n for (_, _, n) in results})
    lines = []
    for workload in workloads:
        lines.append(f"\n#### {workload}\n")
        lines.append("| implementation | " + " | ".join(f"n = {n:,}" for n in sizes) + " |")
        lines.append("| --- |" + " --- |" * len(sizes))
        for implementation in implementations:
            row = []
            for n in sizes:
                time, mallocs = results.get((implementation, workload, n), (None, None))
                if time is None:
                    row.append("")
                else:
                    per = time / n
                    text = f"{per:.3g} µs" if per >= 0.001 else f"{per * 1000:.3g} ns"
                    if mallocs is not None:
                        text += f" ({mallocs / n:.2g} allocs)"
                    row.append(text)
            if any(row):
                name = names.get(implementation, implementation)
                if implementation == "Tempo" and workload in CLOCK_WORKLOADS:
                    name = "Tempo, no scope"
                lines.append(f"| {name} | " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def ratios(results):
    """Tempo's cost per action over the heap floor's (one-shots through a bare heap) and over the
    floor behind Combine's API (the same workload on SchedulerFloor), at each size."""
    heap = "one-shots, one advance"
    workloads = sorted({w for (i, w, _) in results if i == "SchedulerFloor"})
    sizes = sorted({n for (i, _, n) in results if i == "SchedulerFloor"})
    lines = ["\n| workload | " + " | ".join(f"n = {n:,}" for n in sizes) + " |"]
    lines.append("| --- |" + " --- |" * len(sizes))
    for workload in workloads:
        row = []
        for n in sizes:
            tempo = results.get(("Tempo", workload, n), (None, None))[0]
            floor = results.get(("Floor", heap, n), (None, None))[0]
            api = results.get(("SchedulerFloor", workload, n), (None, None))[0]
            if tempo is None or floor is None or api is None:
                row.append("")
            else:
                row.append(f"{tempo / floor:.1f}× / {tempo / api:.2f}×")
        lines.append(f"| {workload} | " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def chart(results, workload, path):
    colors = {"Tempo": "#1f77b4", "combine-schedulers": "#d62728", "Floor": "#2ca02c"}
    series = defaultdict(list)
    for (implementation, w, n), (time, _) in results.items():
        if w == workload and time and implementation in colors:
            series[implementation].append((n, time / n))
    points = [p for s in series.values() for p in s]
    if not points:
        return
    width, height, margin = 640, 400, 60
    xs = [math.log10(n) for n, _ in points]
    ys = [math.log10(v) for _, v in points]
    x0, x1 = math.floor(min(xs)), math.ceil(max(xs))
    y0, y1 = math.floor(min(ys)), math.ceil(max(ys))

    def px(n, v):
        x = margin + (math.log10(n) - x0) / max(x1 - x0, 1) * (width - 2 * margin)
        y = height - margin - (math.log10(v) - y0) / max(y1 - y0, 1) * (height - 2 * margin)
        return x, y

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        'font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14">'
        f"Cost per action: {workload} (log–log)</text>",
    ]
    for e in range(x0, x1 + 1):
        x, _ = px(10**e, 10**y0)
        out.append(f'<line x1="{x}" y1="{margin}" x2="{x}" y2="{height - margin}" stroke="#eee"/>')
        out.append(f'<text x="{x}" y="{height - margin + 16}" text-anchor="middle">N = 10^{e}</text>')
    for e in range(y0, y1 + 1):
        _, y = px(10**x0, 10**e)
        out.append(f'<line x1="{margin}" y1="{y}" x2="{width - margin}" y2="{y}" stroke="#eee"/>')
        label = f"{10**e:g} µs"
        out.append(f'<text x="{margin - 6}" y="{y + 4}" text-anchor="end">{label}</text>')
    for index, (implementation, values) in enumerate(sorted(series.items())):
        values.sort()
        path_points = " ".join(f"{px(n, v)[0]:.1f},{px(n, v)[1]:.1f}" for n, v in values)
        color = colors[implementation]
        out.append(f'<polyline points="{path_points}" fill="none" stroke="{color}" stroke-width="2"/>')
        for n, v in values:
            x, y = px(n, v)
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"/>')
        out.append(
            f'<text x="{width - margin - 150}" y="{margin + 16 * index}" fill="{color}">'
            f"{implementation}</text>"
        )
    out.append("</svg>")
    open(path, "w").write("\n".join(out))


if __name__ == "__main__":
    results = parse(sys.argv[1])
    directory = sys.argv[2] if len(sys.argv) > 2 else "."
    print(table(results))
    print(ratios(results))
    chart(results, "one-shots, one advance", f"{directory}/benchmark-one-shots.svg")
