"""The values go_subset.Interpreter works with (structs, named constants, pointers) and Go's
fmt formatting of them (%v, Sprintf's verbs) as imgproxy's tests use it."""

import copy
import re

from go_syntax import GoUnsupported

class Struct:
    """A struct value: its type's name (None for an anonymous struct) and its fields."""

    def __init__(self, type_name, fields):
        self.type_name = type_name
        self.fields = fields

    def __repr__(self):
        return f"{self.type_name or 'struct'}{self.fields}"

    def __eq__(self, other):
        return isinstance(other, Struct) and self.type_name == other.type_name and self.fields == other.fields

    def __deepcopy__(self, memo):
        return Struct(self.type_name, {k: copy.deepcopy(v, memo) for k, v in self.fields.items()})


class Enum:
    """A constant of a named Go type (processing.GravityNorth): its name and its String()."""

    def __init__(self, name, text):
        self.name = name
        self.text = text

    def __eq__(self, other):
        return isinstance(other, Enum) and self.name == other.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return self.name


class Pointer:
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, Pointer) and self.value == other.value

    def __repr__(self):
        return f"&{self.value!r}"


def go_float_text(value):
    """Go's %v of a float64: the shortest text that reads back, no trailing .0."""
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        digits = exponent.lstrip("+-").zfill(2)
        text = f"{mantissa}e{sign}{digits}"
    return text


def go_value_text(value):
    """Go's %v."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return go_float_text(value)
    if isinstance(value, Enum):
        return value.text
    if value is None:
        return "<nil>"
    if isinstance(value, Pointer):
        return "&" + go_value_text(value.value)
    if isinstance(value, Struct):
        return "{" + " ".join(go_value_text(v) for v in value.fields.values()) + "}"
    if isinstance(value, list):
        return "[" + " ".join(go_value_text(v) for v in value) + "]"
    return str(value)


_VERB = re.compile(r"%([-+# 0]*)(\d*)(?:\.(\d+))?([a-zA-Z%])")


def go_format(template, args):
    """fmt.Sprintf for the verbs tests use."""
    args = list(args)

    def replace(match):
        flags, width, precision, verb = match.groups()
        if verb == "%":
            return "%"
        value = args.pop(0)
        if verb in ("v", "s"):
            text = go_value_text(value)
        elif verb == "d":
            text = str(int(value))
        elif verb == "t":
            text = "true" if value else "false"
        elif verb == "f":
            text = f"{float(value):.{int(precision) if precision else 6}f}"
        elif verb == "g":
            text = go_float_text(float(value)) if precision is None else f"{float(value):.{precision}g}"
        elif verb in ("x", "X"):
            text = format(int(value), verb)
        elif verb == "q":
            text = '"' + str(value) + '"'
        else:
            raise GoUnsupported(f"fmt verb %{verb}")
        if width:
            pad = "0" if "0" in flags else " "
            text = text.ljust(int(width)) if "-" in flags else text.rjust(int(width), pad)
        return text

    return _VERB.sub(replace, template)
