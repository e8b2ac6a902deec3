"""Schemathesis hooks for scripts/contract-test: the rules between fields that
docs/api.yaml states in words because OpenAPI 3.0 cannot state them (its header
lists them). Schema-valid cases are made to follow them before they are sent, so
that `positive_data_acceptance` holds the hub to "every valid document is
accepted". Nothing here loosens a check on a case that breaks the schema.
"""
import math

import schemathesis

RECORD_PATHS = {"/v1/sos/{id}": "sos", "/v1/trips/{id}": "trip", "/v1/drafts/{id}": "draft",
                "/v1/drafts/{id}/confirmation": "confirmation"}


def _trip(t):
    if not isinstance(t, dict):
        return
    if isinstance(t.get("start_utc_ns"), int) and isinstance(t.get("end_utc_ns"), int) and t["end_utc_ns"] < t["start_utc_ns"]:
        t["start_utc_ns"], t["end_utc_ns"] = t["end_utc_ns"], t["start_utc_ns"]
    s = t.get("statistics")
    if isinstance(s, dict) and isinstance(s.get("moving_s"), (int, float)) and isinstance(s.get("elapsed_s"), (int, float)):
        s["moving_s"] = min(s["moving_s"], s["elapsed_s"])


def _draft(d, record_id):
    if not isinstance(d, dict):
        return
    d["id"] = record_id
    _trip(d.get("trip"))
    # The upload budget (docs/hub.md): latitudes within ±85°, and a path of at most 1,500 km:
    # each point within 0.01° of the first (a path of n points is then under n × 1.6 km).
    first = None
    for point in d.get("path") or []:
        if isinstance(point, list) and len(point) == 2 and all(isinstance(v, (int, float)) for v in point):
            point[0] = max(-85, min(85, point[0]))
            if first is None:
                first = list(point)
            else:
                point[0] = first[0] + math.fmod(point[0] - first[0], 0.01)
                point[1] = first[1] + math.fmod(point[1] - first[1], 0.01)
    for r in d.get("road_quality") or []:
        if isinstance(r, dict) and isinstance(r.get("start_offset_s"), (int, float)) and isinstance(r.get("end_offset_s"), (int, float)):
            if r["end_offset_s"] < r["start_offset_s"]:
                r["start_offset_s"], r["end_offset_s"] = r["end_offset_s"], r["start_offset_s"]


def _body(kind, body, record_id):
    if not isinstance(body, dict):
        return
    if kind == "sos":
        body["id"] = record_id
        if isinstance(body.get("time_ns"), int) and isinstance(body.get("impact_time_ns"), int) and body["impact_time_ns"] > body["time_ns"]:
            body["time_ns"], body["impact_time_ns"] = body["impact_time_ns"], body["time_ns"]
    elif kind == "trip":
        body["id"] = record_id
        _trip(body)
    elif kind == "draft":
        _draft(body, record_id)
    elif kind == "confirmation":
        _draft(body.get("draft"), record_id)


def _south_west_first(bbox, span=0.5):
    """In order and within the globe, at most `span`° on a side: 0.5° is < 3,100 km² anywhere,
    under the 10,000 km² limit; 0.04° is < 20 km², under /v1/streets' 30 km²."""
    parts = [float(p) for p in bbox.split(",")]
    w, e = sorted(parts[0::2])
    s, n = sorted(parts[1::2])
    w, e = max(-180.0, min(179.0, w)), max(-180.0, min(180.0, e))
    s, n = max(-90.0, min(89.0, s)), max(-90.0, min(90.0, n))
    e = min(max(e, w + 0.001), w + span)
    n = min(max(n, s + 0.001), s + span)
    return f"{w:.3f},{s:.3f},{e:.3f},{n:.3f}"


def _near_each_other(origin, destination):
    """Origin and destination in range and at most 50 km apart (docs/api.yaml, /v1/routes):
    the destination is moved to within 0.3° of latitude and longitude of the origin."""
    try:
        lat, lon = (float(p) for p in origin.split(","))
        dlat, dlon = (float(p) for p in destination.split(","))
    except (AttributeError, ValueError):
        return origin, destination
    lat, lon = max(-80.0, min(80.0, lat)), max(-179.0, min(179.0, lon))
    dlat = lat + max(-0.3, min(0.3, dlat - lat))
    dlon = lon + max(-0.3, min(0.3, dlon - lon)) * max(0.1, math.cos(math.radians(lat)))
    return f"{lat:.5f},{lon:.5f}", f"{dlat:.5f},{max(-180.0, min(180.0, dlon)):.5f}"


def _in_range(point):
    """LAT,LON clamped into ±90° and ±180° (docs/api.yaml, /v1/places `near`)."""
    try:
        lat, lon = (float(p) for p in point.split(","))
    except ValueError:
        return point
    return f"{max(-90.0, min(90.0, lat)):.5f},{max(-180.0, min(180.0, lon)):.5f}"


@schemathesis.hook
def map_case(context, case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return case
    path = case.operation.path
    if path in RECORD_PATHS and isinstance(case.path_parameters, dict) and isinstance(case.path_parameters.get("id"), str):
        _body(RECORD_PATHS[path], case.body, case.path_parameters["id"])
    elif path == "/v1/batch" and isinstance(case.body, dict):
        for item in case.body.get("records") or []:
            if isinstance(item, dict) and isinstance(item.get("id"), str):
                _body(item.get("kind"), item.get("body"), item["id"])
    elif path == "/v1/routes" and isinstance(case.query, dict):
        case.query["from"], case.query["to"] = _near_each_other(case.query.get("from"), case.query.get("to"))
    elif path == "/v1/places" and isinstance(case.query, dict) and isinstance(case.query.get("near"), str):
        case.query["near"] = _in_range(case.query["near"])
    elif (path.startswith("/v1/map/") or path == "/v1/streets") and isinstance(case.query, dict) and isinstance(case.query.get("bbox"), str):
        try:
            case.query["bbox"] = _south_west_first(case.query["bbox"], 0.04 if path == "/v1/streets" else 0.5)
        except ValueError:
            pass
    return case


@schemathesis.hook
def filter_failure(context, failure, case, response):
    """A batch is judged item by item (docs/api.yaml, POST /v1/batch): a schema-invalid
    item is answered 400 `invalid` inside a 200. Such a 200 is a rejection, as long as
    some item was refused; a batch whose every item was stored still fails the check."""
    if case.operation.path != "/v1/batch" or response.status_code != 200 or "negative_data_rejection" not in failure.checks:
        return True
    try:
        results = response.json().get("results") or []
    except ValueError:
        return True
    return not any(r.get("outcome") == "invalid" for r in results if isinstance(r, dict))
