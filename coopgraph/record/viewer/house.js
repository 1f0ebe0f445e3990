// coopgraph house drawing (C-WAH's rooms, TDW-MAT's floorplan): rooms, doors, the bed's goal circle and agent
// markers, as SVG in world metres with y flipped so north is up. Shared by the trace viewer (inlined) and the play
// page (served), as grid.js is for grids. Every label is set as text.
(function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg"; // the SVG namespace name; nothing is fetched from it
  function svg(tag, attrs) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    return node;
  }
  function titled(node, text) {
    const title = svg("title");
    title.textContent = text;
    node.append(title);
    return node;
  }
  // Rooms (labelled boxes, `data-room` = id) and doors; returns the svg root and the y flip.
  function drawRooms(L, attrs) {
    const xs = L.rooms.flatMap((r) => [r.x, r.x + r.width]);
    const ys = L.rooms.flatMap((r) => [r.y, r.y + r.depth]);
    const minX = Math.min(...xs) - 0.5, maxX = Math.max(...xs) + 0.5, minY = Math.min(...ys) - 0.5, maxY = Math.max(...ys) + 0.5;
    const flip = (y) => maxY + minY - y;
    const root = svg("svg", { viewBox: `${minX} ${minY} ${maxX - minX} ${maxY - minY}`, id: "map-svg", ...attrs });
    for (const r of L.rooms) {
      root.append(svg("rect", { class: "room", x: r.x, y: flip(r.y + r.depth), width: r.width, height: r.depth, "data-room": r.id }));
      const label = svg("text", { class: "room-label", x: r.x + 0.15, y: flip(r.y + r.depth) + 0.6 });
      label.textContent = r.name;
      root.append(label);
    }
    for (const d of L.doors || []) root.append(svg("circle", { class: "door", cx: d.position[0], cy: flip(d.position[1]), r: 0.22 }));
    return { root, flip };
  }
  // The bed (TDW-MAT's goal) and the circle things must reach, at `position` [x, y].
  function drawBed(root, flip, position, radius) {
    root.append(svg("circle", { class: "goal-zone", cx: position[0], cy: flip(position[1]), r: radius || 3 }));
    root.append(titled(svg("rect", { class: "bed", x: position[0] - 0.5, y: flip(position[1]) - 0.5, width: 1, height: 1, rx: 0.1 }), "bed"));
  }
  // One object: containers and furniture as squares, items as dots; `data-object` is its id.
  function drawObject(parent, flip, o, extraClass) {
    const [x, y] = [o.position[0], flip(o.position[1])];
    const cls = (o.kind === "item" ? "item" : o.kind === "container" ? "container" : "furniture") + (extraClass ? " " + extraClass : "");
    const shape = o.kind === "item"
      ? svg("circle", { class: cls, r: 0.14, cx: x.toFixed(3), cy: y.toFixed(3), "data-object": o.id })
      : svg("rect", { class: cls, x: (x - 0.25).toFixed(3), y: (y - 0.25).toFixed(3), width: 0.5, height: 0.5, rx: 0.06, "data-object": o.id });
    parent.append(titled(shape, `<${o.name}> (${o.id})`));
    return shape;
  }
  // An agent's marker: a coloured disc with its initial and (for worlds with a heading) a nose.
  function agentMarker(agent, color) {
    const group = svg("g", { class: "agent-marker", "data-agent": agent });
    const circle = svg("circle", { class: "agent", r: 0.36, fill: color, "data-agent": agent });
    const nose = svg("line", { class: "facing", stroke: color });
    const label = svg("text", { class: "agent-label" });
    label.textContent = agent.slice(0, 1).toUpperCase();
    group.append(circle, nose, label);
    return { group, circle, nose, label };
  }
  // Put a marker at map point (x, y) (already flipped); `heading` in degrees, 0 faces up, turning right adds.
  function placeAgent(marker, x, y, heading) {
    marker.circle.setAttribute("cx", x.toFixed(3)); marker.circle.setAttribute("cy", y.toFixed(3));
    marker.label.setAttribute("x", x.toFixed(3)); marker.label.setAttribute("y", y.toFixed(3));
    const h = ((heading || 0) * Math.PI) / 180;
    const reach = heading == null ? 0 : 0.7;
    marker.nose.setAttribute("x1", x.toFixed(3)); marker.nose.setAttribute("y1", y.toFixed(3));
    marker.nose.setAttribute("x2", (x + Math.sin(h) * reach).toFixed(3)); marker.nose.setAttribute("y2", (y - Math.cos(h) * reach).toFixed(3));
  }
  window.CoopgraphHouse = { svg, titled, drawRooms, drawBed, drawObject, agentMarker, placeAgent };
})();
