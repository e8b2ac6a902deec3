#!/usr/bin/env python3
"""bench/heavy-ride.py HUB_BIN POINTS STRETCHES — what one dense ride costs every rider after it
(docs/performance.md, "The heaviest ride the budget takes"): starts HUB_BIN (`bikepath-hub`,
SQLite, three device tokens) on loopback, uploads one confirmed ride due north with POINTS path
points 1.1 m apart and STRETCHES road-quality stretches of 4.4 m, then two riders' confirmations
of the same pothole, and prints the heavy ride's answer and how long until the pothole is on the
public map (`/v1/map/obstacles`; 120 s at most)."""
import json, math, os, subprocess, sys, tempfile, time, urllib.error, urllib.request

hub_bin, points, stretches = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
tokens = {"heavy": "token-of-heavy-0123456789", "bike-1": "token-of-bike-1-0123456789", "bike-2": "token-of-bike-2-0123456789"}
work = tempfile.mkdtemp(prefix="bikepath-heavy.")
with open(os.path.join(work, "tokens"), "w") as f:
    f.write("".join(f"{d} {t}\n" for d, t in tokens.items()))
os.chmod(os.path.join(work, "tokens"), 0o600)
out = open(os.path.join(work, "out"), "w+")
hub = subprocess.Popen([hub_bin, "serve", "--port", "0", "--db", os.path.join(work, "hub.sqlite"), "--tokens",
                        os.path.join(work, "tokens"), "--device-rate", "0"], stdout=out, stderr=subprocess.DEVNULL)
try:
    url = None
    for _ in range(300):
        out.seek(0)
        text = out.read()
        if "listening on " in text:
            url = "http://" + text.split("listening on ")[1].split()[0]
            break
        time.sleep(0.1)
    if url is None:
        sys.exit("the hub did not start")

    def put(path, body, device):
        request = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="PUT",
                                         headers={"Authorization": "Bearer " + tokens[device], "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=300) as r:
                return r.status, r.read()[:200].decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read()[:300].decode()

    stats = {"distance_m": 3000, "elapsed_s": 900, "moving_s": 850, "avg_moving_speed_mps": 3.5, "max_speed_mps": 8,
             "elevation_gain_m": 10, "co2_avoided_g": 360}

    def confirmation(record_id, path, road=(), obstacles=()):
        return {"confirmed": True, "draft": {"id": record_id, "trip": {"id": "T-" + record_id, "start_utc_ns": 1793520000000000000,
                "statistics": stats}, "path": path, "obstacles": list(obstacles), "road_quality": list(road)}}

    road = [{"start_offset_s": i, "end_offset_s": i + 1, "start": {"lat": 51.3 + i * 0.00004, "lon": -0.2},
             "end": {"lat": 51.3 + (i + 1) * 0.00004, "lon": -0.2}, "length_m": 4.4, "roughness": 0.1, "status": "medium"}
            for i in range(stretches)]
    t0 = time.time()
    status, text = put("/v1/drafts/HEAVY/confirmation", confirmation("HEAVY", [[51.3 + i * 0.00001, -0.2] for i in range(points)], road), "heavy")
    print(f"heavy ride ({points} points, {stretches} stretches): {status} in {time.time() - t0:.1f} s {text if status != 201 else ''}")

    def east(x):
        return [52.52, 13.40 + x / (111320 * math.cos(math.radians(52.52)))]

    pothole = [{"id": "O0", "kind": "pothole", "offset_s": 40, "position": {"lat": east(300)[0], "lon": east(300)[1]}, "origin": "detected"}]
    for device in ("bike-1", "bike-2"):
        status, text = put(f"/v1/drafts/R-{device}/confirmation",
                           confirmation("R-" + device, [east(x) for x in range(0, 601, 20)], obstacles=pothole), device)
        if status != 201:
            sys.exit(f"{device}: {status} {text}")
    t0 = time.time()
    while True:
        with urllib.request.urlopen(url + "/v1/map/obstacles?bbox=13.39,52.51,13.42,52.53") as r:
            features = json.loads(r.read())["features"]
        if features or time.time() - t0 > 120:
            break
        time.sleep(0.2)
    print(f"pothole public after {time.time() - t0:.1f} s" if features else "pothole NOT public after 120 s")
finally:
    hub.kill()
    hub.wait()
