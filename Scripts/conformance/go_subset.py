"""A reader of the subset of Go that imgproxy's table-driven tests are written in.

imgproxy's conformance runners (imgproxy_processing.py, imgproxy_parser.py) read its test files at
run time instead of copying their rows: go_syntax.py parses the Go source into tuples, and this
module's Interpreter evaluates them (over go_values.py's values).
What a test does with imgproxy itself (processing an image, parsing a path) is a call the runner
provides as a "host" function; everything else (composite literals, locals, loops, fmt.Sprintf,
the options builder, String() of enumerations) is evaluated here. Anything outside the subset
raises GoUnsupported, naming what it met, so a change upstream shows as an error, not as a
silently different row.
"""

import copy

from go_syntax import GoUnsupported, parse_file
from go_values import Enum, Pointer, Struct, go_float_text, go_format, go_value_text

__all__ = ["GoUnsupported", "parse_file", "Struct", "Enum", "Pointer", "Interpreter", "go_format", "go_value_text",
           "go_float_text"]


# ---------------------------------------------------------------------------------------------
# Interpreter


class _Return(Exception):
    def __init__(self, values):
        self.values = values


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class Scope:
    def __init__(self, parent=None):
        self.values = {}
        self.parent = parent

    def lookup(self, name):
        scope = self
        while scope is not None:
            if name in scope.values:
                return scope, scope.values[name]
            scope = scope.parent
        raise KeyError(name)

    def set(self, name, value):
        scope = self
        while scope is not None:
            if name in scope.values:
                scope.values[name] = value
                return
            scope = scope.parent
        raise GoUnsupported(f"assignment to undeclared {name}")


class Interpreter:
    """Evaluates the declarations of one Go package (several files) with host callbacks.

    `host.resolve(name)` answers package-qualified names (processing.GravityNorth, fmt.Sprintf, ...)
    and `host.call_method(receiver, name, args)` methods on host objects; both raise KeyError when
    they do not know the name.
    """

    def __init__(self, decls_list, host):
        self.types = {}
        self.methods = {}
        self.funcs = {}
        for decls in decls_list:
            self.types.update(decls["types"])
            self.methods.update(decls["methods"])
            self.funcs.update(decls["funcs"])
        self.host = host
        self.globals = Scope()
        for decls in decls_list:
            for _, names, kind, value in decls["vars"]:
                for index, name in enumerate(names):
                    if value is not None:
                        self.globals.values[name] = self.evaluate(value[index], self.globals)
                    else:
                        self.globals.values[name] = self.zero(kind)

    # -- types

    def struct_fields(self, type_name):
        kind = self.types.get(type_name)
        if kind is None or kind[0] != "struct":
            return None
        return kind[1]

    def zero(self, kind):
        if kind is None:
            return None
        tag = kind[0]
        if tag == "named":
            name = kind[1]
            if name in ("int", "int64", "int32", "uint8", "byte", "uint", "rune"):
                return 0
            if name in ("float64", "float32"):
                return 0.0
            if name == "bool":
                return False
            if name == "string":
                return ""
            if name in self.types:
                underlying = self.types[name]
                if underlying[0] == "struct":
                    return self.new_struct(name, [])
                return self.zero(underlying)
            return self.host.zero(name)
        if tag == "struct":
            return Struct(None, {field: self.zero(sub) for field, sub, _ in kind[1]})
        if tag in ("slice", "ptr", "map", "interface", "functype"):
            return None
        if tag == "generic":
            return self.new_struct(kind[1], [])
        raise GoUnsupported(f"zero value of {kind}")

    def new_struct(self, type_name, elements, scope=None, anonymous=None):
        fields_decl = anonymous if anonymous is not None else self.struct_fields(type_name)
        if fields_decl is None:
            return self.host.composite(type_name, [(k, self.evaluate(v, scope)) for k, v in elements])
        fields = {name: self.zero(kind) for name, kind, _ in fields_decl}
        keyed = elements and elements[0][0] is not None
        for position, (key, value_node) in enumerate(elements):
            if keyed:
                name = key[1] if key[0] == "ident" else None
                field_kind = next(k for n, k, _ in fields_decl if n == name)
            else:
                name, field_kind, _ = fields_decl[position]
            fields[name] = self._element(value_node, field_kind, scope)
        return Struct(type_name, fields)

    def _element(self, node, kind, scope):
        """A composite literal's element, whose own type may be elided ({...} inside a slice)."""
        if node[0] == "composite" and node[1] is None:
            return self._literal_of(kind, node[2], scope)
        return copy.deepcopy(self.evaluate(node, scope))

    def _literal_of(self, kind, elements, scope):
        tag = kind[0]
        if tag == "slice":
            return [self._element(value, kind[1], scope) for _, value in elements]
        if tag == "map":
            return {self.evaluate(k, scope): self._element(v, kind[2], scope) for k, v in elements}
        if tag == "struct":
            return self.new_struct(None, elements, scope, anonymous=kind[1])
        if tag in ("named", "generic"):
            name = kind[1]
            underlying = self.types.get(name)
            if underlying is not None and underlying[0] in ("slice", "map"):
                return self._literal_of(underlying, elements, scope)
            return self.new_struct(name, elements, scope)
        if tag == "ptr":
            return Pointer(self._literal_of(kind[1], elements, scope))
        raise GoUnsupported(f"literal of {kind}")

    # -- calls

    def call_function(self, function, args, receiver=None, closure=None):
        _, params, body = function
        scope = Scope(closure or self.globals)
        if receiver is not None:
            scope.values[receiver[0]] = copy.deepcopy(receiver[1]) if isinstance(receiver[1], Struct) else receiver[1]
        for index, name in enumerate(params):
            if name.startswith("..."):
                scope.values[name[3:]] = list(args[index:])
                break
            value = args[index] if index < len(args) else None
            scope.values[name] = copy.deepcopy(value) if isinstance(value, Struct) else value
        try:
            self.run(body, scope)
        except _Return as done:
            return done.values[0] if len(done.values) == 1 else tuple(done.values) if done.values else None
        return None

    def method(self, value, name):
        """A method of a struct value declared in the package, or None."""
        if isinstance(value, Struct) and value.type_name is not None:
            found = self.methods.get((value.type_name, name))
            if found is not None:
                return found
            # embedded fields
            for field_name, kind, embedded in self.struct_fields(value.type_name) or []:
                if embedded:
                    inner = value.fields.get(field_name)
                    found = self.method(inner, name)
                    if found is not None:
                        return found
        return None

    # -- statements

    def run(self, statements, scope):
        for statement in statements:
            self.execute(statement, scope)

    def execute(self, node, scope):
        tag = node[0]
        if tag == "expr":
            self.evaluate(node[1], scope)
        elif tag == "assign":
            self._assign(node, scope)
        elif tag == "return":
            raise _Return([self.evaluate(v, scope) for v in node[1]])
        elif tag == "if":
            inner = Scope(scope)
            if node[1] is not None:
                self.execute(node[1], inner)
            if self.evaluate(node[2], inner):
                self.run(node[3], Scope(inner))
            elif node[4] is not None:
                self.run(node[4], Scope(inner))
        elif tag == "range":
            self._range(node, scope)
        elif tag == "for":
            inner = Scope(scope)
            if node[1] is not None:
                self.execute(node[1], inner)
            for _ in range(1_000_000):
                if node[2] is not None and not self.evaluate(node[2], inner):
                    break
                try:
                    self.run(node[4], Scope(inner))
                except _Break:
                    break
                except _Continue:
                    pass
                if node[3] is not None:
                    self.execute(node[3], inner)
            else:
                raise GoUnsupported("a loop that does not end")
        elif tag == "var":
            _, names, kind, value = node
            for index, name in enumerate(names):
                scope.values[name] = self.evaluate(value[index], scope) if value else self.zero(kind)
        elif tag == "defer":
            pass  # tests defer Close calls only
        elif tag == "block":
            self.run(node[1], Scope(scope))
        elif tag == "break":
            raise _Break()
        elif tag == "continue":
            raise _Continue()
        else:
            raise GoUnsupported(f"statement {tag}")

    def _range(self, node, scope):
        _, names, over_node, body = node
        over = self.evaluate(over_node, scope)
        if isinstance(over, int):
            items = [(i, i) for i in range(over)]
        elif isinstance(over, dict):
            items = list(over.items())
        else:
            items = list(enumerate(over))
        for key, value in items:
            inner = Scope(scope)
            if names:
                if names[0] != "_":
                    inner.values[names[0]] = key
                if len(names) > 1 and names[1] != "_":
                    inner.values[names[1]] = copy.deepcopy(value) if isinstance(value, Struct) else value
            try:
                self.run(body, inner)
            except _Break:
                break
            except _Continue:
                continue

    def _assign(self, node, scope):
        _, op, left, right = node
        values = [self.evaluate(v, scope) for v in right]
        if len(left) > 1 and len(values) == 1:
            values = list(values[0]) if isinstance(values[0], tuple) else [values[0]] + [None] * (len(left) - 1)
        for target, value in zip(left, values):
            if isinstance(value, Struct):
                value = copy.deepcopy(value)
            if op in ("+=", "-=", "*=", "/="):
                value = self._binary(op[0], self.evaluate(target, scope), value)
            if op == ":=":
                if target[1] != "_":
                    scope.values[target[1]] = value
            else:
                self._store(target, value, scope)

    def _store(self, target, value, scope):
        tag = target[0]
        if tag == "ident":
            if target[1] != "_":
                scope.set(target[1], value)
        elif tag == "select":
            holder = self.evaluate(target[1], scope)
            if isinstance(holder, Pointer):
                holder = holder.value
            if isinstance(holder, Struct):
                holder.fields[target[2]] = value
            else:
                self.host.store(holder, target[2], value)
        elif tag == "index":
            holder = self.evaluate(target[1], scope)
            holder[self.evaluate(target[2], scope)] = value
        else:
            raise GoUnsupported(f"assignment to {tag}")

    # -- expressions

    def evaluate(self, node, scope):
        tag = node[0]
        if tag == "lit":
            return node[1]
        if tag == "ident":
            return self._identifier(node[1], scope)
        if tag == "select":
            return self._select(node, scope)
        if tag == "call":
            return self._call(node, scope)
        if tag == "binary":
            op = node[1]
            if op == "&&":
                return bool(self.evaluate(node[2], scope)) and bool(self.evaluate(node[3], scope))
            if op == "||":
                return bool(self.evaluate(node[2], scope)) or bool(self.evaluate(node[3], scope))
            return self._binary(op, self.evaluate(node[2], scope), self.evaluate(node[3], scope))
        if tag == "unary":
            value = self.evaluate(node[2], scope)
            op = node[1]
            if op == "!":
                return not value
            if op == "-":
                return -value
            if op == "&":
                return Pointer(value) if isinstance(value, (Struct, Enum)) and not isinstance(value, Pointer) else value
            if op == "*":
                return value.value if isinstance(value, Pointer) else value
            return value
        if tag == "composite":
            kind_node = node[1]
            if kind_node is None:
                raise GoUnsupported("untyped composite literal")
            kind = self._kind_of(kind_node)
            return self._literal_of(kind, node[2], scope)
        if tag == "index":
            holder = self.evaluate(node[1], scope)
            return holder[self.evaluate(node[2], scope)]
        if tag == "slice":
            holder = self.evaluate(node[1], scope)
            low = self.evaluate(node[2], scope)
            high = None if node[3] is None else self.evaluate(node[3], scope)
            return holder[low:high]
        if tag == "funclit":
            return ("closure", ("func", node[1], node[2]), scope)
        if tag == "type":
            return ("typevalue", node[1])
        raise GoUnsupported(f"expression {tag}")

    def _kind_of(self, node):
        if node[0] == "type":
            return node[1]
        if node[0] == "ident":
            return ("named", node[1])
        if node[0] == "index":
            return ("generic", node[1][1], None)
        if node[0] == "select":
            return ("named", f"{node[1][1]}.{node[2]}")
        raise GoUnsupported(f"type {node}")

    def _identifier(self, name, scope):
        try:
            return scope.lookup(name)[1]
        except KeyError:
            pass
        if name == "true":
            return True
        if name == "false":
            return False
        if name == "nil":
            return None
        if name in self.funcs:
            return ("closure", self.funcs[name], self.globals)
        try:
            return self.host.resolve(name)
        except KeyError:
            raise GoUnsupported(f"unknown name {name}") from None

    def _select(self, node, scope):
        _, base_node, name = node
        if base_node[0] == "ident":
            try:
                scope.lookup(base_node[1])
            except KeyError:
                if base_node[1] not in self.funcs:
                    try:
                        return self.host.resolve(f"{base_node[1]}.{name}")
                    except KeyError:
                        raise GoUnsupported(f"unknown name {base_node[1]}.{name}") from None
        base = self.evaluate(base_node, scope)
        if isinstance(base, Pointer):
            base = base.value
        if isinstance(base, Struct):
            if name in base.fields:
                return base.fields[name]
            for field_name, _, embedded in self.struct_fields(base.type_name) or []:
                if embedded and isinstance(base.fields.get(field_name), Struct) and name in base.fields[field_name].fields:
                    return base.fields[field_name].fields[name]
            if self.method(base, name) is not None:
                return ("bound", base, name)
            return self.host.attribute(base, name)
        return self.host.attribute(base, name)

    def _call(self, node, scope):
        _, function_node, arg_nodes = node
        if function_node[0] == "select":
            receiver = None
            base_node = function_node[1]
            is_package = False
            if base_node[0] == "ident":
                try:
                    scope.lookup(base_node[1])
                except KeyError:
                    is_package = True
            if not is_package:
                receiver = self.evaluate(base_node, scope)
                target = receiver.value if isinstance(receiver, Pointer) else receiver
                args = [self.evaluate(a, scope) for a in arg_nodes]
                found = self.method(target, function_node[2])
                if found is not None:
                    receiver_name, function = found
                    return self.call_function(function, args, receiver=(receiver_name, target))
                return self.host.call_method(target, function_node[2], args, self)
        if function_node[0] == "ident" and function_node[1] in _BUILTINS:
            try:
                scope.lookup(function_node[1])
            except KeyError:
                return _BUILTINS[function_node[1]](*[self.evaluate(a, scope) for a in arg_nodes])
        function = self.evaluate(function_node, scope)
        args = [self.evaluate(a, scope) for a in arg_nodes]
        if isinstance(function, tuple) and function and function[0] == "closure":
            return self.call_function(function[1], args, closure=function[2])
        if isinstance(function, tuple) and function and function[0] == "bound":
            receiver_name, method = self.method(function[1], function[2])
            return self.call_function(method, args, receiver=(receiver_name, function[1]))
        if isinstance(function, tuple) and function and function[0] == "typevalue":
            return args[0]  # a conversion: []byte(x), float64(x)
        if callable(function):
            return function(*args)
        raise GoUnsupported(f"call of {function_node}")

    def _binary(self, op, left, right):
        if isinstance(left, Pointer) and isinstance(right, Pointer):
            left, right = left.value, right.value
        if op == "+":
            return left + right
        if op == "-":
            return left - right
        if op == "*":
            return left * right
        if op == "/":
            if isinstance(left, int) and isinstance(right, int):
                return int(left / right)
            return left / right
        if op == "%":
            return left % right
        if op == "==":
            return left == right
        if op == "!=":
            return left != right
        if op == "<":
            return left < right
        if op == "<=":
            return left <= right
        if op == ">":
            return left > right
        if op == ">=":
            return left >= right
        raise GoUnsupported(f"operator {op}")


_BUILTINS = {
    "len": len,
    "append": lambda items, *more: (items or []) + list(more),
    "make": lambda kind, *sizes: {} if kind[1][0] == "map" else [],
    "new": lambda kind: None,
    "string": lambda value: value,
    "float64": float,
    "float32": float,
    "int": int,
}
