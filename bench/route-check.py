#!/usr/bin/env python3
"""The route benchmark's independent check (bench/network.sh): for each query, the
cheapest path over the exported public links from the origin (-1, joined to the ends
of its joining points' links at their access cost and share) to the destination (-2),
by networkx's Dijkstra
(not the hub's code), against the hub's best route's score.

Usage: route-check.py EXPORT_DIR   (best.csv: query,score; links.csv: query,source,target,cost)
"""
import csv
import sys
from collections import defaultdict

import networkx as nx

directory = sys.argv[1]
graphs = defaultdict(nx.Graph)
with open(f"{directory}/links.csv") as f:
    for row in csv.DictReader(f):
        g, u, v, w = graphs[row["query"]], int(row["source"]), int(row["target"]), float(row["cost"])
        # Two joining points may reach one node (or join on one link): the cheaper counts.
        if not g.has_edge(u, v) or g[u][v]["weight"] > w:
            g.add_edge(u, v, weight=w)
within, total, worst = 0, 0, 0.0
with open(f"{directory}/best.csv") as f:
    for query, score in csv.reader(f):
        if query == "query":
            continue
        optimum = nx.dijkstra_path_length(graphs[query], -1, -2)
        excess = (float(score) - optimum) / optimum if optimum > 0 else 0.0
        worst = max(worst, excess)
        total += 1
        within += excess <= 0.01
print(f"route quality: best route within 1 % of networkx's optimum on {within} of {total} queries "
      f"(worst {100 * worst:.3f} %): {'met' if within == total and total > 0 else 'NOT met'}")
sys.exit(0 if within == total and total > 0 else 1)
