#!/usr/bin/env python3
"""The route benchmark's independent check (bench/network.sh): for each query, the
cheapest path between the best route's ends over the exported public links, by
networkx's Dijkstra (not the hub's code), against the hub's best route's score.

Usage: route-check.py EXPORT_DIR   (best.csv: query,score,from,to; links.csv: query,id,source,target,cost)
"""
import csv
import sys
from collections import defaultdict

import networkx as nx

directory = sys.argv[1]
graphs = defaultdict(nx.Graph)
with open(f"{directory}/links.csv") as f:
    for row in csv.DictReader(f):
        graphs[row["query"]].add_edge(int(row["source"]), int(row["target"]), weight=float(row["cost"]))
within, total, worst = 0, 0, 0.0
with open(f"{directory}/best.csv") as f:
    for query, score, source, target in csv.reader(f):
        if query == "query":
            continue
        optimum = nx.dijkstra_path_length(graphs[query], int(source), int(target))
        excess = (float(score) - optimum) / optimum if optimum > 0 else 0.0
        worst = max(worst, excess)
        total += 1
        within += excess <= 0.01
print(f"route quality: best route within 1 % of networkx's optimum on {within} of {total} queries "
      f"(worst {100 * worst:.3f} %): {'met' if within == total and total > 0 else 'NOT met'}")
sys.exit(0 if within == total and total > 0 else 1)
