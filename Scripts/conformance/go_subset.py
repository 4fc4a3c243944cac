"""A reader of the subset of Go that imgproxy's table-driven tests are written in.

imgproxy's conformance runners (imgproxy_processing.py, imgproxy_parser.py) read its test files at
run time instead of copying their rows: this module tokenises Go source (with Go's semicolon
insertion), parses declarations, statements and expressions into tuples, and interprets them.
What a test does with imgproxy itself (processing an image, parsing a path) is a call the runner
provides as a "host" function; everything else (composite literals, locals, loops, fmt.Sprintf,
the options builder, String() of enumerations) is evaluated here. Anything outside the subset
raises GoUnsupported, naming what it met, so a change upstream shows as an error, not as a
silently different row.
"""

import copy
import re

__all__ = ["GoUnsupported", "parse_file", "Struct", "Enum", "Interpreter", "go_format", "go_value_text"]


class GoUnsupported(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Tokens

_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r]+)
  | (?P<nl>\n)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<raw>`[^`]*`)
  | (?P<str>"(?:\\.|[^"\\\n])*")
  | (?P<rune>'(?:\\.|[^'\\\n])+')
  | (?P<num>(?:0[xX][0-9a-fA-F_]+)|(?:\d[\d_]*\.?\d*(?:[eE][+-]?\d+)?)|(?:\.\d+(?:[eE][+-]?\d+)?))
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>:=|\.\.\.|&&|\|\||==|!=|<=|>=|\+=|-=|\*=|/=|\+\+|--|<-|[-+*/%&|^!<>=(){}\[\],;:.~])
""", re.S | re.X)

_ENDS_STATEMENT = {"ident", "num", "str", "raw", "rune"}
_ENDS_STATEMENT_WORDS = {"return", "break", "continue", "fallthrough"}
_ENDS_STATEMENT_OPS = {")", "]", "}", "++", "--"}


def tokenize(text):
    tokens = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match:
            raise GoUnsupported(f"unexpected character {text[pos]!r} at {pos}")
        kind = match.lastgroup
        value = match.group(kind)
        pos = match.end()
        newline = kind == "nl" or (kind == "comment" and "\n" in value)
        if newline:
            if tokens and _ends_statement(tokens[-1]):
                tokens.append(("op", ";"))
            continue
        if kind in ("ws", "comment"):
            continue
        tokens.append((kind, value))
    if tokens and _ends_statement(tokens[-1]):
        tokens.append(("op", ";"))
    return tokens


def _ends_statement(token):
    kind, value = token
    if kind == "ident":
        return True
    if kind in _ENDS_STATEMENT:
        return True
    return kind == "op" and value in _ENDS_STATEMENT_OPS or value in _ENDS_STATEMENT_WORDS


def _string_value(kind, text):
    if kind == "raw":
        return text[1:-1]
    return bytes(text[1:-1], "utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")


# ---------------------------------------------------------------------------------------------
# Parser: a file's declarations as tuples


class _Parser:
    def __init__(self, tokens):
        self.tokens = tokens
        self.i = 0
        self.no_literal = 0  # inside if/for/switch headers, T{ starts the block, not a literal

    def peek(self, offset=0):
        index = self.i + offset
        return self.tokens[index] if index < len(self.tokens) else ("eof", "")

    def at(self, value):
        return self.peek()[1] == value and self.peek()[0] in ("op", "ident")

    def take(self, value=None):
        token = self.peek()
        if value is not None and token[1] != value:
            raise GoUnsupported(f"expected {value!r}, found {token[1]!r} near {self._context()}")
        self.i += 1
        return token

    def accept(self, value):
        if self.at(value):
            self.i += 1
            return True
        return False

    def _context(self):
        return " ".join(t[1] for t in self.tokens[max(0, self.i - 8):self.i + 8])

    def skip_semis(self):
        while self.accept(";"):
            pass

    # -- declarations

    def file(self):
        decls = {"types": {}, "methods": {}, "funcs": {}, "vars": []}
        while self.peek()[0] != "eof":
            self.skip_semis()
            if self.peek()[0] == "eof":
                break
            word = self.peek()[1]
            if word in ("package",):
                self.take()
                self.take()
            elif word == "import":
                self.take()
                if self.accept("("):
                    while not self.accept(")"):
                        self.take()
                else:
                    if self.peek()[0] == "ident":
                        self.take()
                    self.take()
            elif word == "type":
                self.take()
                if self.accept("("):
                    self.skip_semis()
                    while not self.accept(")"):
                        self._type_spec(decls)
                        self.skip_semis()
                else:
                    self._type_spec(decls)
            elif word in ("var", "const"):
                self.take()
                if self.accept("("):
                    self.skip_semis()
                    while not self.accept(")"):
                        decls["vars"].append(self._var_spec())
                        self.skip_semis()
                else:
                    decls["vars"].append(self._var_spec())
            elif word == "func":
                self._func(decls)
            else:
                raise GoUnsupported(f"top-level {word!r}")
        return decls

    def _type_spec(self, decls):
        name = self.take()[1]
        if self.at("["):  # type parameters
            self._skip_balanced("[", "]")
        kind = self.type_expr()
        decls["types"][name] = kind

    def _var_spec(self):
        names = [self.take()[1]]
        while self.accept(","):
            names.append(self.take()[1])
        kind = None
        if not self.at("="):
            kind = self.type_expr()
        value = None
        if self.accept("="):
            value = self.expr_list()
        return ("var", names, kind, value)

    def _func(self, decls):
        self.take("func")
        receiver = None
        if self.at("("):
            self.take("(")
            recv_name = self.take()[1] if self.peek(1)[1] != ")" else "_"
            if self.peek()[1] == "*":
                self.take()
            recv_type = self.take()[1]
            if self.at("["):
                self._skip_balanced("[", "]")
            self.take(")")
            receiver = (recv_name, recv_type)
        name = self.take()[1]
        if self.at("["):
            self._skip_balanced("[", "]")
        params = self._params()
        if not self.at("{"):
            if self.at("("):
                self._skip_balanced("(", ")")
            else:
                self.type_expr()
        body = self.block()
        function = ("func", params, body)
        if receiver:
            decls["methods"][(receiver[1], name)] = (receiver[0], function)
        else:
            decls["funcs"][name] = function

    def _params(self):
        self.take("(")
        groups = []
        while not self.accept(")"):
            names = []
            while True:
                if self.peek()[0] == "ident" and self.peek(1)[1] in (",", ")") and not groups and False:
                    pass
                names.append(self.take()[1])
                if self.accept(","):
                    continue
                break
            if self.accept("..."):
                names[-1] = "..." + names[-1]
            if not self.at(")"):
                kind = self.type_expr()
                groups.append((names, kind))
                self.accept(",")
            else:
                groups.append((names, None))
        params = []
        for names, kind in groups:
            params.extend(names if kind is not None else [])
        return params

    def _skip_balanced(self, opening, closing):
        depth = 0
        while True:
            token = self.take()
            if token[1] == opening:
                depth += 1
            elif token[1] == closing:
                depth -= 1
                if depth == 0:
                    return

    # -- types

    def type_expr(self):
        if self.accept("*"):
            return ("ptr", self.type_expr())
        if self.at("["):
            self.take("[")
            if self.accept("]"):
                return ("slice", self.type_expr())
            self.expr()
            self.take("]")
            return ("array", self.type_expr())
        if self.accept("map"):
            self.take("[")
            key = self.type_expr()
            self.take("]")
            return ("map", key, self.type_expr())
        if self.accept("struct"):
            self.take("{")
            fields = []
            self.skip_semis()
            while not self.accept("}"):
                names = [self.take()[1]]
                while self.accept(","):
                    names.append(self.take()[1])
                if self.at(";") or self.at("}"):
                    fields.append((names[0], ("named", names[0]), True))  # embedded
                else:
                    kind = self.type_expr()
                    fields.extend((name, kind, False) for name in names)
                if self.peek()[0] == "str" or self.peek()[0] == "raw":
                    self.take()
                self.skip_semis()
            return ("struct", fields)
        if self.accept("interface"):
            self._skip_balanced("{", "}") if self.at("{") else None
            return ("interface",)
        if self.accept("func"):
            self._skip_balanced("(", ")")
            if not self.at(";") and not self.at(")") and not self.at(",") and not self.at("{"):
                self.type_expr()
            return ("functype",)
        name = self.take()[1]
        if self.accept("."):
            name += "." + self.take()[1]
        if self.at("[") and self.peek(1)[0] == "ident":
            self.take("[")
            argument = self.type_expr()
            self.take("]")
            return ("generic", name, argument)
        return ("named", name)

    # -- statements

    def block(self):
        self.take("{")
        statements = []
        self.skip_semis()
        while not self.accept("}"):
            statements.append(self.statement())
            self.skip_semis()
        return statements

    def statement(self):
        word = self.peek()[1]
        if word == "return":
            self.take()
            if self.at(";") or self.at("}"):
                return ("return", [])
            return ("return", self.expr_list())
        if word == "if":
            return self._if()
        if word == "for":
            return self._for()
        if word == "var":
            self.take()
            return self._var_spec()
        if word == "defer":
            self.take()
            return ("defer", self.expr())
        if word in ("break", "continue"):
            self.take()
            return (word,)
        if self.at("{"):
            return ("block", self.block())
        return self.simple_statement()

    def simple_statement(self):
        left = self.expr_list()
        op = self.peek()[1]
        if op in (":=", "=", "+=", "-=", "*=", "/="):
            self.take()
            right = self.expr_list()
            return ("assign", op, left, right)
        if op in ("++", "--"):
            self.take()
            return ("assign", "+=" if op == "++" else "-=", left, [("lit", 1)])
        if len(left) != 1:
            raise GoUnsupported(f"expression list as a statement near {self._context()}")
        return ("expr", left[0])

    def _if(self):
        self.take("if")
        self.no_literal += 1
        init = None
        condition = self.simple_statement()
        if self.accept(";"):
            init = condition
            condition = self.simple_statement()
        self.no_literal -= 1
        if condition[0] != "expr":
            raise GoUnsupported("if without a condition")
        body = self.block()
        otherwise = None
        if self.accept("else"):
            otherwise = [self._if()] if self.at("if") else self.block()
        return ("if", init, condition[1], body, otherwise)

    def _for(self):
        self.take("for")
        self.no_literal += 1
        if self.at("{"):
            self.no_literal -= 1
            return ("forever", self.block())
        # range forms
        start = self.i
        names = []
        if self.peek()[0] == "ident" and self.peek(1)[1] in (",", ":=", "="):
            names.append(self.take()[1])
            while self.accept(","):
                names.append(self.take()[1])
            if self.at(":=") or self.at("="):
                self.take()
                if self.accept("range"):
                    over = self.expr()
                    self.no_literal -= 1
                    return ("range", names, over, self.block())
            self.i = start
            names = []
        if self.accept("range"):
            over = self.expr()
            self.no_literal -= 1
            return ("range", [], over, self.block())
        init = None if self.at(";") else self.simple_statement()
        self.take(";")
        condition = None if self.at(";") else self.expr()
        self.take(";")
        post = None if self.at("{") else self.simple_statement()
        self.no_literal -= 1
        return ("for", init, condition, post, self.block())

    # -- expressions

    _PRECEDENCE = {"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 3, "<=": 3, ">": 3, ">=": 3,
                   "+": 4, "-": 4, "|": 4, "^": 4, "*": 5, "/": 5, "%": 5, "&": 5}

    def expr_list(self):
        items = [self.expr()]
        while self.accept(","):
            items.append(self.expr())
        return items

    def expr(self, minimum=1):
        left = self.unary()
        while True:
            op = self.peek()[1]
            level = self._PRECEDENCE.get(op) if self.peek()[0] == "op" else None
            if level is None or level < minimum:
                return left
            self.take()
            right = self.expr(level + 1)
            left = ("binary", op, left, right)

    def unary(self):
        if self.peek()[0] == "op" and self.peek()[1] in ("!", "-", "+", "&", "*", "^"):
            op = self.take()[1]
            return ("unary", op, self.unary())
        return self.primary()

    def primary(self):
        kind, value = self.peek()
        if kind == "num":
            self.take()
            text = value.replace("_", "")
            if text.lower().startswith("0x"):
                node = ("lit", int(text, 16))
            elif any(c in text for c in ".eE"):
                node = ("lit", float(text))
            else:
                node = ("lit", int(text))
        elif kind in ("str", "raw"):
            self.take()
            node = ("lit", _string_value(kind, value))
        elif kind == "rune":
            self.take()
            node = ("lit", ord(_string_value("str", '"' + value[1:-1] + '"')))
        elif value == "(" and kind == "op":
            self.take()
            self.no_literal, saved = 0, self.no_literal
            node = self.expr()
            self.no_literal = saved
            self.take(")")
        elif value == "func" and kind == "ident":
            self.take()
            params = self._params()
            if self.at("("):
                self._skip_balanced("(", ")")
            elif not self.at("{"):
                self.type_expr()
            saved, self.no_literal = self.no_literal, 0
            node = ("funclit", params, self.block())
            self.no_literal = saved
        elif value in ("[", "struct", "map") and (kind == "op" or value != "["):
            node = ("type", self.type_expr())
        elif value == "{" and kind == "op":
            node = self.literal_body(None)
            return self.postfix(node)
        elif kind == "ident":
            self.take()
            node = ("ident", value)
        else:
            raise GoUnsupported(f"unexpected {value!r} near {self._context()}")
        return self.postfix(node)

    def postfix(self, node):
        while True:
            if self.at("."):
                self.take()
                node = ("select", node, self.take()[1])
            elif self.at("("):
                self.take("(")
                args = []
                self.skip_semis()
                while not self.accept(")"):
                    args.append(self.expr())
                    self.accept("...")
                    self.accept(",")
                    self.skip_semis()
                node = ("call", node, args)
            elif self.at("["):
                self.take("[")
                index = self.expr()
                if self.accept(":"):
                    upper = None if self.at("]") else self.expr()
                    self.take("]")
                    node = ("slice", node, index, upper)
                else:
                    self.take("]")
                    node = ("index", node, index)
            elif self.at("{") and (self.no_literal == 0 or node[0] == "type") and _is_type_like(node):
                node = self.literal_body(node)
            else:
                return node

    def literal_body(self, kind):
        self.take("{")
        saved, self.no_literal = self.no_literal, 0
        elements = []
        self.skip_semis()
        while not self.accept("}"):
            if self.at("{"):
                value = self.literal_body(None)
            else:
                value = self.expr()
            if self.accept(":"):
                key = value
                value = self.literal_body(None) if self.at("{") else self.expr()
                elements.append((key, value))
            else:
                elements.append((None, value))
            self.accept(",")
            self.skip_semis()
        self.no_literal = saved
        return ("composite", kind, elements)


def _is_type_like(node):
    if node[0] in ("type", "ident"):
        return True
    if node[0] == "select":
        return node[1][0] == "ident"
    if node[0] == "index":  # generic type: testCase[sizeTestCase]
        return _is_type_like(node[1])
    return False


def parse_file(text):
    """Declarations of a Go file: types, methods (by receiver type and name), functions, vars."""
    return _Parser(tokenize(text)).file()


# ---------------------------------------------------------------------------------------------
# Values


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
            return _compare(left) > _compare(right)
        if op == ">=":
            return left >= right
        raise GoUnsupported(f"operator {op}")


def _compare(value):
    return value


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
