"""thumbor's own filter test cases, read from thumbor's source distribution, for loupe serve's
thumbor-filter conformance tests.

Usage: thumbor_filter_cases.py PATH_TO/tests/filters ; prints one JSON object per test that
compares a filtered image by SSIM: the file and test name, the source fixture, the filter string,
the request attributes its `config_context` sets (fit-in, full, adaptive, width, height, stretch;
any other is listed under "unsupported"), the PIL mode both images are converted to, what it is
compared with (a fixture, or another filter string on the same source) and thumbor's bound
(`>` a threshold, or `==` 1). The test modules are read with `ast`, not imported: they import
thumbor itself, which the venv does not hold.
"""
import ast
import json
import os
import sys


def literal(node):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return None


def filtered_call(node):
    """`await self.get_filtered(source, [module,] params, [config_context], mode=...)`."""
    if isinstance(node, ast.Await):
        node = node.value
    if not isinstance(node, ast.Call) or getattr(node.func, "attr", None) != "get_filtered":
        return None
    args = list(node.args)
    keywords = {keyword.arg: keyword.value for keyword in node.keywords}
    strings = [literal(arg) for arg in args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
    others = [arg for arg in args if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str))]
    if len(strings) < 2:
        return None
    context = keywords.get("config_context") or (others[0] if others else None)
    return {
        "source": strings[0],
        "filter": strings[-1],
        "mode": literal(keywords["mode"]) if "mode" in keywords else "RGB",
        "context": context,
    }


def context_attributes(context, functions):
    """The `context.request.X = value` lines of the config function a test passes."""
    name = getattr(context, "id", None) or getattr(context, "attr", None)
    function = functions.get(name)
    attributes, unsupported = {}, []
    if function is None:
        return attributes, unsupported if context is None else [ast.unparse(context)]
    for statement in ast.walk(function):
        if not isinstance(statement, ast.Assign):
            continue
        target = statement.targets[0]
        value = literal(statement.value)
        if isinstance(target, ast.Attribute) and ast.unparse(target.value).endswith("context.request") and value is not None:
            attributes[target.attr] = value
        else:
            unsupported.append(ast.unparse(statement))
    known = {"fit_in", "full", "adaptive", "width", "height", "stretch"}
    unsupported += [name for name in attributes if name not in known]
    return attributes, unsupported


def bound(statement):
    """thumbor's SSIM bound: `assert ssim > x`, `assert ssim == 1`, or preggy's `expect(ssim)...`."""
    if isinstance(statement, ast.Assert) and isinstance(statement.test, ast.Compare):
        compare = statement.test
        if getattr(compare.left, "id", None) == "ssim":
            operator = {ast.Gt: ">", ast.Eq: "=="}.get(type(compare.ops[0]))
            return (operator, literal(compare.comparators[0])) if operator else None
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        inner = getattr(call.func, "value", None)
        if isinstance(inner, ast.Call) and getattr(inner.func, "id", None) == "expect" and getattr(inner.args[0], "id", None) == "ssim":
            operator = {"to_be_greater_than": ">", "to_equal": "=="}.get(call.func.attr)
            return (operator, literal(call.args[0])) if operator else None
    return None


def cases(path):
    tree = ast.parse(open(path, encoding="utf-8").read())
    methods = {node.name: node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for test in methods.values():
        if not test.name.startswith("test_"):
            continue
        functions = dict(methods)
        functions.update({node.name: node for node in ast.walk(test) if isinstance(node, ast.FunctionDef)})
        image = expected = None
        for statement in test.body:
            if isinstance(statement, ast.Assign):
                name = getattr(statement.targets[0], "id", None)
                call = filtered_call(statement.value)
                if call is not None and name == "image":
                    image = call
                elif call is not None and name == "expected":
                    expected = {"filter": call["filter"], "source": call["source"], "mode": call["mode"]}
                elif name == "expected" and getattr(getattr(statement.value, "func", None), "attr", None) == "get_fixture":
                    arguments = statement.value.args
                    keywords = {keyword.arg: keyword.value for keyword in statement.value.keywords}
                    expected = {"fixture": literal(arguments[0]),
                                "mode": literal(keywords["mode"]) if "mode" in keywords else literal(arguments[1]) if len(arguments) > 1 else "RGB"}
            limit = bound(statement)
            if limit and image and expected:
                attributes, unsupported = context_attributes(image["context"], functions)
                yield {
                    "file": os.path.basename(path), "test": test.name,
                    "source": image["source"], "filter": image["filter"], "mode": image["mode"],
                    "request": attributes, "unsupported": unsupported,
                    "expected": expected, "operator": limit[0], "threshold": limit[1],
                }


directory = sys.argv[1]
for name in sorted(os.listdir(directory)):
    if name.startswith("test_") and name.endswith(".py"):
        for case in cases(os.path.join(directory, name)):
            print(json.dumps(case))
