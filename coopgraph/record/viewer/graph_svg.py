"""An agent's graph spec drawn as inline SVG (no Mermaid runtime, no CDN): nodes in layers from the entry,
forward edges straight down, loops back on the side, router branches labelled.

Every node and edge carries `data-node` / `data-from`+`data-to` so the page can highlight the path a run took.
"""

from __future__ import annotations

from collections import deque
from html import escape
from typing import Any

START, END = "__start__", "END"
BOX_W, BOX_H, GAP_X, GAP_Y = 168, 40, 28, 34


def spec_edges(spec: Any) -> list[tuple[str, str, str]]:
    """(source, target, label) for chain arrows, router branches and the entry."""
    edges = [(START, spec.entry, "")]
    edges += [(a, b, "") for _, a, b in spec.chain_pairs()]
    for _, edge in spec.router_edges():
        edges += [(edge.source, target, branch) for branch, target in edge.branches.items()]
    return edges


def _layers(nodes: list[str], edges: list[tuple[str, str, str]]) -> dict[str, int]:
    out: dict[str, list[str]] = {}
    for a, b, _ in edges:
        out.setdefault(a, []).append(b)
    depth = {START: 0}
    queue = deque([START])
    while queue:
        node = queue.popleft()
        for nxt in out.get(node, []):
            if nxt not in depth and nxt != END:
                depth[nxt] = depth[node] + 1
                queue.append(nxt)
    last = max(depth.values(), default=0)
    for node in nodes:  # unreachable nodes (should not happen in a checked spec) go last
        if node not in depth:
            last += 1
            depth[node] = last
    depth[END] = max(depth.values()) + 1
    return depth


def graph_svg(spec: Any) -> str:
    """SVG markup for a loaded spec's `GraphSpec`."""
    nodes = list(spec.nodes)
    edges = spec_edges(spec)
    depth = _layers(nodes, edges)
    rows: dict[int, list[str]] = {}
    for node in [START, *nodes, END]:
        rows.setdefault(depth[node], []).append(node)
    widest = max(len(r) for r in rows.values())
    width = widest * (BOX_W + GAP_X) + GAP_X + 90
    height = len(rows) * (BOX_H + GAP_Y) + GAP_Y
    pos: dict[str, tuple[float, float]] = {}
    for layer, members in rows.items():
        span = len(members) * (BOX_W + GAP_X) - GAP_X
        left = (width - 90 - span) / 2
        for i, node in enumerate(members):
            pos[node] = (left + i * (BOX_W + GAP_X), GAP_Y / 2 + layer * (BOX_H + GAP_Y))
    parts = [f'<svg class="graph" viewBox="0 0 {width:.0f} {height:.0f}" width="{width:.0f}" height="{height:.0f}" '
             'role="img">',
             '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="9" markerHeight="9" '
             'markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>']
    for index, (a, b, label) in enumerate(edges):
        parts.append(_edge(a, b, label, pos, depth, index))
    for node in [START, *nodes, END]:
        x, y = pos[node]
        use = spec.nodes[node].use if node in spec.nodes else ""
        title = {START: "start", END: "end"}.get(node, node)
        kind = "terminal" if node in (START, END) else "node"
        parts.append(f'<g class="{kind}" data-node="{escape(node)}"><rect x="{x:.0f}" y="{y:.0f}" width="{BOX_W}" '
                     f'height="{BOX_H}" rx="{20 if kind == "terminal" else 6}"/>'
                     f'<text x="{x + BOX_W / 2:.0f}" y="{y + (16 if use else 25):.0f}" class="name">'
                     f"{escape(title)}</text>")
        if use:
            parts.append(f'<text x="{x + BOX_W / 2:.0f}" y="{y + 31:.0f}" class="use">{escape(use)}</text>')
        parts.append(f'<text class="visits" x="{x + BOX_W - 4:.0f}" y="{y + 12:.0f}"></text></g>')
    parts.append("</svg>")
    return "".join(parts)


def _edge(a: str, b: str, label: str, pos: dict[str, tuple[float, float]], depth: dict[str, int], index: int) -> str:
    ax, ay = pos[a]
    bx, by = pos[b]
    attrs = f'class="edge" data-from="{escape(a)}" data-to="{escape(b)}"'
    if depth[b] > depth[a]:
        x1, y1, x2, y2 = ax + BOX_W / 2, ay + BOX_H, bx + BOX_W / 2, by
        path = f"M{x1:.0f},{y1:.0f} C{x1:.0f},{y1 + 18:.0f} {x2:.0f},{y2 - 18:.0f} {x2:.0f},{y2:.0f}"
        lx, ly = (x1 + x2) / 2 + 4, (y1 + y2) / 2
    else:  # a loop back (or sideways): out on the right, round, into the target's right side
        bend = max(ax, bx) + BOX_W + 30 + 14 * (index % 3)
        y1, y2 = ay + BOX_H / 2, by + BOX_H / 2
        path = (f"M{ax + BOX_W:.0f},{y1:.0f} C{bend:.0f},{y1:.0f} {bend:.0f},{y2:.0f} "
                f"{bx + BOX_W:.0f},{y2:.0f}")
        lx, ly = bend - 10, (y1 + y2) / 2
    text = f'<text class="branch" x="{lx:.0f}" y="{ly:.0f}">{escape(label)}</text>' if label else ""
    return f'<g {attrs}><path d="{path}" marker-end="url(#arrow)"/>{text}</g>'
