"""Go's syntax, the subset imgproxy's table-driven tests are written in: tokens (with Go's
semicolon insertion) and a parser of declarations, statements and expressions into tuples, which
go_subset.Interpreter evaluates. Anything outside the subset raises GoUnsupported naming it.
"""

import re

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
