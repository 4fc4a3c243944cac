"""thumbor's own transformer test cases, read from thumbor's source distribution, for loupe serve's
thumbor-geometry conformance tests.

Usage: thumbor_transformer_cases.py PATH_TO/transformer_test_data.py ; prints one JSON object per
case: its inputs (source and target size, alignment as shares, focal points, manual crop, fit-in
flags) and thumbor's expectations (the first crop box, and the resize: TESTITEMS' target or
FIT_IN_CROP_DATA's width, height and whether to resize). The module is read with `ast`, not
imported: it imports thumbor itself, which the venv does not hold.
"""
import ast
import json
import sys

SHARES = {"left": 0.0, "center": 0.5, "right": 1.0, "top": 0.0, "middle": 0.5, "bottom": 1.0}


def evaluate(node):
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "fp":
        x, y, weight = (evaluate(arg) for arg in node.args)
        return {"x": x, "y": y, "weight": weight}
    if isinstance(node, ast.List):
        return [evaluate(item) for item in node.elts]
    return ast.literal_eval(node)


def case(call, group, index):
    fields = {keyword.arg: evaluate(keyword.value) for keyword in call.keywords}
    crop = [fields[name] for name in ("crop_left", "crop_top", "crop_right", "crop_bottom")]
    return {
        "group": group,
        "index": index,
        "source": [fields["source_width"], fields["source_height"]],
        "target": [fields["target_width"], fields["target_height"]],
        "halign": SHARES[fields["halign"]],
        "valign": SHARES[fields["valign"]],
        "focal": fields["focal_points"],
        "crop": None if crop[0] is None else crop,
        "fit_in": fields.get("fit_in", False),
        "adaptive": fields.get("adaptive", False),
        "full": fields.get("full", False),
        "stretch": fields.get("stretch", False),
    }


tree = ast.parse(open(sys.argv[1], encoding="utf-8").read())
for statement in tree.body:
    if not isinstance(statement, ast.Assign) or not isinstance(statement.value, ast.List):
        continue
    name = statement.targets[0].id
    for index, element in enumerate(statement.value.elts):
        if name == "TESTITEMS":
            print(json.dumps(case(element, name, index)))
        elif name == "FIT_IN_CROP_DATA":
            data, expected = element.elts
            row = case(data, name, index)
            row["expected_resize"] = ast.literal_eval(expected)
            print(json.dumps(row))
