"""The geometry cases of scripts/contract-test: the rides and searches that once took the hub
down or answered nonsense (docs/hub.md, "Upload budget" and "Request budget"), sent to the
running hub after Schemathesis's generated cases. Each answer must be one docs/api.yaml
allows (Schemathesis's own checks, `Case.call_and_validate`) and the one stated below.

Bodies are made from the schema itself (its required fields at their smallest valid values),
so they follow docs/api.yaml's field names as it changes; only `path` is set here.

    geometry.py API_YAML HUB_URL TOKEN
"""
import re
import sys

import schemathesis

api, url, token = sys.argv[1:4]
schema = schemathesis.openapi.from_path(api)
raw = schema.raw_schema
auth = {"Authorization": f"Bearer {token}"}


def node_ref(ref):
    return ref.lstrip("#/").split("/")


def minimal(node):
    """The smallest instance of `node` the schema allows: required properties only."""
    if isinstance(node, dict) and "$ref" in node:
        target = raw
        for part in node_ref(node["$ref"]):
            target = target[part]
        return minimal(target)
    if "allOf" in node:
        out = {}
        for sub in node["allOf"]:
            out.update(minimal(sub))
        return out
    if "oneOf" in node or "anyOf" in node:
        return minimal((node.get("oneOf") or node.get("anyOf"))[0])
    if "enum" in node:
        return node["enum"][0]
    kind = node.get("type")
    if kind == "object":
        props = node.get("properties", {})
        return {name: minimal(props[name]) for name in node.get("required", [])}
    if kind == "array":
        return [minimal(node["items"]) for _ in range(node.get("minItems", 0))]
    if kind in ("integer", "number"):
        low = node.get("minimum", 0)
        return max(low, 1) if kind == "integer" and node.get("exclusiveMinimum") else low
    if kind == "boolean":
        return True
    if kind == "string":
        pattern = node.get("pattern", "")
        return "G1" if pattern else "x"
    raise ValueError(f"no minimal value for {node}")


def confirmation(record_id, path):
    body = minimal(schema["/v1/drafts/{id}/confirmation"]["PUT"].definition.raw["requestBody"]["content"]["application/json"]["schema"])
    body["confirmed"] = True
    body["draft"]["id"] = record_id
    body["draft"]["path"] = path
    return body


failures = []


def check(name, operation, expect_status, expect_text=None, **case):
    case = operation.Case(**case)
    try:
        response = case.call_and_validate(base_url=url)
    except Exception as error:  # a check of the schema failed: the answer is not one it allows
        failures.append(f"{name}: {error}")
        return
    text = response.text
    if response.status_code != expect_status or (expect_text and not re.search(expect_text, text)):
        failures.append(f"{name}: answered {response.status_code} {text[:300]}; expected {expect_status} matching {expect_text!r}")
    else:
        print(f"geometry: {name}: {response.status_code} ok")


confirm = schema["/v1/drafts/{id}/confirmation"]["PUT"]
lap = [[90, 0], [90, 180], [89.9999, 90], [90, -180]]
for name, record_id, path, status, text in [
    ("polar path", "POLE", lap * 50, 400, r"85"),
    ("beyond 85 degrees", "NORTH", [[85.01, 10], [85.02, 10]], 400, r"85"),
    ("longer than the budget", "HUGE", [[0, 0], [0, 20]], 400, r"1500 km"),
    ("across the antimeridian (22 m)", "DATELINE", [[10, 179.9999], [10, -179.9999]], 201, None),
    ("zero length", "STILL", [[52.5, 13.4], [52.5, 13.4]], 201, None),
]:
    check(name, confirm, status, text, path_parameters={"id": record_id}, body=confirmation(record_id, path), headers=auth,
          media_type="application/json")

routes = schema["/v1/routes"]["GET"]
check("route across the antimeridian", routes, 400, r"across-antimeridian", query={"from": "10,179.99", "to": "10,-179.99"})
check("route from a point to itself", routes, 404, r"no-path-near", query={"from": "52.5,13.4", "to": "52.5,13.4"})
# No path is mapped beyond 85°: at the pole the answer is that none is near, found at once.
check("route at the pole", routes, 404, r"no-path-near", query={"from": "90,0", "to": "89.99,180"})
heatmap = schema["/v1/map/heatmap"]["GET"]
check("thin box round the world", heatmap, 400, r"too-many-tiles", query={"bbox": "-180,-0.0001,180,0.0001", "cell": "5000"})

if failures:
    print("geometry: FAILED:\n  " + "\n  ".join(failures), file=sys.stderr)
    sys.exit(1)
