#!/usr/bin/env python3
"""imgproxy 4's URL-parser tests (options/parser/*_test.go) run against `loupe serve` over HTTP.

The cases are read from imgproxy's repository at run time (go_subset.py interprets the test
files); nothing is copied. The host the tests name, images.dev, stands for a loopback origin this
runner starts (every `images.dev` in the test files reads `127.0.0.1:<port>` before they are
parsed, in paths, base URLs and replacements alike); the origin answers every path with a JPEG
and records what it was asked. Settings a test changes first (presets, only-presets, allowed
options, base URL, URL replacements, argument separator, base64 filenames) and the client
features it passes (WebP/AVIF/JPEG XL preference and enforcement, client hints) become imgproxy's
environment variables of a server started for them and the request headers a client sends.

A case passes when:
  - the answer's status agrees: 200 where the test expects no error, a 4xx where it expects one
    (Loupe words its messages its own way: the text is shown, not compared);
  - the origin was asked for the source URL the test expects;
  - the answer's bytes equal those of the same source requested, on a server with imgproxy's
    default settings, with the options the test expects written out explicitly (width,
    resizing type, crop and gravity with offsets, quality, blur, background, watermark, format,
    skip_processing, ... each key the test checks spelled as its URL option): so what the
    parser made of the case's URL is judged by its effect. Keys no URL option spells (used
    presets, preferences) are judged by the answer's format where they decide it, and
    otherwise not at all; they are named in the report.
presets_test.go's cases are server start-ups: a preset list the test expects to be refused must
stop `loupe serve` at start-up, one it accepts must start it, and a preset it reads must answer
as its options written out.

    python3 Scripts/conformance/imgproxy_parser.py --loupe .build/release/loupe \
        --imgproxy-repo /path/imgproxy.git --test-images /path/test-images.git [--require-all]
"""

import argparse
import collections
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from go_subset import Enum, GoUnsupported, Interpreter, Struct, go_float_text, go_value_text, parse_file  # noqa: E402
from imgproxy_repo import GoLibrary, LoupeServer, Names, Origin, Repository, error_message  # noqa: E402

FILES = ["processing_options", "presets"]

# The options.keys constants the tests read (options/keys/keys.go), each as the URL option and
# argument position that sets it.
KEY_OPTIONS = {
    "width": ("width", 0), "height": ("height", 0), "enlarge": ("enlarge", 0),
    "resizing_type": ("resizing_type", 0), "dpr": ("dpr", 0), "quality": ("quality", 0),
    "background": ("background", 0), "blur": ("blur", 0), "sharpen": ("sharpen", 0),
    "format": ("format", 0), "cachebuster": ("cachebuster", 0), "strip_metadata": ("strip_metadata", 0),
    "preserve_hdr": ("preserve_hdr", 0), "skip_processing": ("skip_processing", 0),
    "extend.enabled": ("extend", 0), "extend.gravity.type": ("extend", 1),
    "extend.gravity.x_offset": ("extend", 2), "extend.gravity.y_offset": ("extend", 3),
    "gravity.type": ("gravity", 0), "gravity.x_offset": ("gravity", 1), "gravity.y_offset": ("gravity", 2),
    "crop.width": ("crop", 0), "crop.height": ("crop", 1), "crop.gravity.type": ("crop", 2),
    "crop.gravity.x_offset": ("crop", 3), "crop.gravity.y_offset": ("crop", 4),
    "watermark.opacity": ("watermark", 0), "watermark.position": ("watermark", 1),
    "watermark.x_offset": ("watermark", 2), "watermark.y_offset": ("watermark", 3), "watermark.scale": ("watermark", 4),
}
# Keys whose value decides the answer's format when true.
PREFERENCE_FORMATS = {"prefer_webp": "image/webp", "prefer_avif": "image/avif", "prefer_jxl": "image/jxl"}
# optionsparser.Config fields (options/parser/config.go) and the variables they are read from.
CONFIG_VARIABLES = {
    "Presets": "IMGPROXY_PRESETS", "OnlyPresets": "IMGPROXY_ONLY_PRESETS", "BaseURL": "IMGPROXY_BASE_URL",
    "URLReplacements": "IMGPROXY_URL_REPLACEMENTS", "ArgumentsSeparator": "IMGPROXY_ARGUMENTS_SEPARATOR",
    "Base64URLIncludesFilename": "IMGPROXY_BASE64_URL_INCLUDES_FILENAME",
    "AllowedProcessingOptions": "IMGPROXY_ALLOWED_PROCESSING_OPTIONS",
}
# Every answer made afresh from the origin: no cached sources or results between cases, so the
# origin sees each case's source URL.
BASE_ENVIRONMENT = {"LOUPE_ALLOW_UNSIGNED": "true", "LOUPE_PERMIT_ADDRESSES": "127.0.0.1",
                    "LOUPE_MEMORY_LIMIT": "0", "LOUPE_RESULT_MEMORY_LIMIT": "0"}


class Case:
    def __init__(self, file, name, path, features, config):
        self.file = file
        self.name = name
        self.path = path
        self.features = features
        self.config = dict(config)
        self.error = None  # True: an error expected; False: none
        self.message = None
        self.source = None
        self.expect = collections.OrderedDict()  # key → value
        self.startup_only = False
        self.preset = None
        self.answer = None
        self.answer_detail = ""
        self.explicit = ""
        self.unspelled = []
        self.headers = {}
        self.reference = None
        self.asked = []

    def label(self):
        return f"{self.file}_test.go {self.name}"


class Handle:
    """What a test holds from ParsePath: the options, the URL or the error of one case."""

    def __init__(self, kind, case):
        self.kind = kind
        self.case = case


class Read:
    """o.GetInt(keys.Width, 0) and its kin: a key of a case's options."""

    def __init__(self, case, key, presence=False):
        self.case = case
        self.key = key
        self.presence = presence


class ParserHost(GoLibrary):
    def __init__(self, names):
        super().__init__(names)
        self.interpreter = None
        self.cases = []
        self.config = {}
        self.file = None
        self.test = None
        self.names_stack = []

    def resolve(self, name):
        if name.startswith("keys."):
            return ("key", self.keys[name[len("keys."):]])
        special = {
            "optionsparser.NewDefaultConfig": lambda: Struct("optionsparser.Config", {}),
            "optionsparser.New": self._new_parser,
            "testutil.NewLazySuiteObj": lambda *args: (None, None),
            "options.Get": lambda o, key, default: Read(o.case, key[1]),
        }
        if name in special:
            return special[name]
        return super().resolve(name)

    def _new_parser(self, context, config):
        config = config.value if hasattr(config, "value") else config
        case = Case(self.file, self._name(), None, None, config.fields)
        case.startup_only = True
        self.cases.append(case)
        return (Handle("parser", case), Handle("err", case))

    def composite(self, type_name, elements):
        return Struct(type_name, {key[1]: value for key, value in elements})

    def attribute(self, base, name):
        if base == "suite":
            return None
        if base == "config":
            return self.config.get(name)
        return super().attribute(base, name)

    def store(self, holder, name, value):
        if holder == "config":
            self.config[name] = value
            return
        if isinstance(holder, Struct):
            holder.fields[name] = value
            return
        super().store(holder, name, value)

    def _name(self):
        return "/".join([self.test] + self.names_stack)

    def call_method(self, target, name, args, interpreter):
        if target == "suite":
            if name == "config":
                return "config"
            if name == "parser":
                return "parser"
            if name in ("T",):
                return "t"
            if name == "Require":
                return "require"
            if name in ("ResetLazyObjects", "SetupSubTest"):
                self.config = {}
                return None
            if name == "Run":
                self.names_stack.append(args[0])
                self.config = {}  # SetupSubTest resets the lazy parser and its configuration
                try:
                    interpreter.call_function(args[1][1], [], closure=args[1][2])
                finally:
                    self.names_stack.pop()
                return None
            found = interpreter.methods.get((self.suite_type, name))
            if found:
                return interpreter.call_function(found[1], args, receiver=(found[0], "suite"))
        if target == "t" and name == "Context":
            return None
        if target == "parser" and name == "ParsePath":
            case = Case(self.file, self._name(), args[1], args[2], self.config)
            self.cases.append(case)
            return (Handle("options", case), Handle("url", case), Handle("err", case))
        if isinstance(target, Handle):
            if target.kind == "options":
                if name in ("GetInt", "GetFloat", "GetBool", "GetTime"):
                    return Read(target.case, args[0][1])
                if name == "Has":
                    return Read(target.case, args[0][1], presence=True)
            if target.kind == "err" and name == "Error":
                return Handle("message", target.case)
            if target.kind == "parser" and name == "Presets":
                return Handle("presets", target.case)
        if target == "require":
            return self._require(name, args)
        return super().call_method(target, name, args, interpreter)

    def _require(self, name, args):
        first = args[0] if args else None
        if name == "NoError" and isinstance(first, Handle):
            first.case.error = False
        elif name == "Error" and isinstance(first, Handle):
            first.case.error = True
        elif name in ("Equal", "InDelta", "ElementsMatch"):
            expected, actual = args[0], args[1]
            if isinstance(actual, Handle) and actual.kind == "url":
                actual.case.source = expected
            elif isinstance(actual, Handle) and actual.kind == "message":
                actual.case.message = expected
            elif isinstance(actual, Read):
                actual.case.expect[actual.key] = expected
            elif isinstance(actual, tuple) and actual and actual[0] == "preset":
                actual[1].case.preset = expected
            else:
                raise GoUnsupported(f"Equal on {actual!r}")
        elif name in ("True", "False") and isinstance(first, Read):
            if first.presence:
                first.case.expect[first.key] = "present" if name == "True" else "absent"
            else:
                first.case.expect[first.key] = name == "True"
        elif name in ("Empty", "NotEmpty", "NotNil"):
            pass  # presets listed or not: judged by the server's start
        else:
            raise GoUnsupported(f"Require().{name}")
        return None


def read_cases(repo, origin_host):
    names = Names(repo)
    keys_source = repo.text("options/keys/keys.go")
    host = ParserHost(names)
    host.keys = _read_keys(keys_source)
    decls = []
    for name in FILES:
        text = repo.text(f"options/parser/{name}_test.go").replace("images.dev", origin_host)
        decls.append(parse_file(text))
    interpreter = Interpreter(decls, host)
    host.interpreter = interpreter
    _patch_index(interpreter)
    for file, file_decls in zip(FILES, decls):
        host.file = file
        for (owner, method), (receiver, function) in file_decls["methods"].items():
            if not method.startswith("Test"):
                continue
            host.suite_type = owner
            host.test = method
            host.config = {}
            interpreter.call_function(function, [], receiver=(receiver, "suite"))
    return host.cases


def _patch_index(interpreter):
    """f.Presets()["test"]: an index into the parser's presets reads as that preset's options."""
    evaluate = interpreter.evaluate

    def patched(node, scope):
        if node[0] == "index":
            holder = evaluate(node[1], scope)
            if isinstance(holder, Handle) and holder.kind == "presets":
                return ("preset", holder, evaluate(node[2], scope))
            return holder[evaluate(node[2], scope)]
        return evaluate(node, scope)

    interpreter.evaluate = patched


def _read_keys(text):
    """keys.go's constants, concatenations resolved."""
    raw = dict(re.findall(r"^\s*(\w+)\s*=\s*(.+?)\s*$", text, re.M))
    resolved = {}

    def value(name, depth=0):
        if name in resolved:
            return resolved[name]
        if depth > 20 or name not in raw:
            raise GoUnsupported(f"keys.{name}")
        parts = [p.strip() for p in raw[name].split("+")]
        text_value = "".join(p.strip('"') if p.startswith('"') else value(p, depth + 1) for p in parts)
        resolved[name] = text_value
        return text_value

    for name in raw:
        try:
            value(name)
        except GoUnsupported:
            pass
    return resolved


# ---------------------------------------------------------------------------------------------
# Settings, headers and explicit options


def pattern_of(regexp):
    """imgproxy's replacement pattern (`*` wildcards) whose regexp (env.RegexpFromPattern) is `regexp`."""
    if not regexp.startswith("^"):
        raise GoUnsupported(f"replacement {regexp} is not a prefix pattern")
    body = regexp[1:].replace("([^/]*)", "*")
    if re.search(r"(?<!\\)[\[\]()|+?{}^$.]", body.replace("\\.", "")):
        raise GoUnsupported(f"replacement {regexp} has no wildcard pattern")
    return body.replace("\\", "")


def environment(config):
    env = dict(BASE_ENVIRONMENT)
    for field, value in config.items():
        variable = CONFIG_VARIABLES.get(field)
        if variable is None:
            raise GoUnsupported(f"config field {field}")
        if field == "URLReplacements":
            text = ";".join(f"{pattern_of(r.fields['Regexp'][1])}={r.fields['Replacement']}" for r in value)
        elif isinstance(value, list):
            text = ",".join(value)
        elif isinstance(value, bool):
            text = "true" if value else "false"
        else:
            text = str(value)
        env[variable] = text
    return env


def client(features):
    """The settings and request headers that give imgproxy's parser these client features."""
    env, headers, accept = {}, {}, []
    if features is None:
        return env, headers
    fields = getattr(features, "value", features).fields
    for name, mime, auto, enforce in (("WebP", "image/webp", "IMGPROXY_AUTO_WEBP", "IMGPROXY_ENFORCE_WEBP"),
                                      ("Avif", "image/avif", "IMGPROXY_AUTO_AVIF", "IMGPROXY_ENFORCE_AVIF"),
                                      ("Jxl", "image/jxl", "IMGPROXY_AUTO_JXL", "IMGPROXY_ENFORCE_JXL")):
        if fields.get(f"Prefer{name}") or fields.get(f"Enforce{name}"):
            accept.append(mime)
            env[auto] = "true"
        if fields.get(f"Enforce{name}"):
            env[enforce] = "true"
    if accept:
        headers["Accept"] = ",".join(accept + ["*/*"])
    if fields.get("ClientHintsWidth") or fields.get("ClientHintsDPR"):
        env["IMGPROXY_ENABLE_CLIENT_HINTS"] = "true"
        if fields.get("ClientHintsWidth"):
            headers["Sec-CH-Width"] = str(fields["ClientHintsWidth"])
        if fields.get("ClientHintsDPR"):
            headers["Sec-CH-DPR"] = go_float_text(float(fields["ClientHintsDPR"]))
    return env, headers


def argument_text(value):
    if isinstance(value, Enum):
        return value.text
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return go_float_text(value)
    if isinstance(value, Struct) and value.type_name == "color.RGB":
        return "%02x%02x%02x" % (value.fields["R"], value.fields["G"], value.fields["B"])
    if isinstance(value, list):
        return ":".join(argument_text(v) for v in value)
    return go_value_text(value)


def explicit_options(case):
    """The options the case expects, written out as URL options; and the keys left unspelled."""
    options = collections.OrderedDict()
    unspelled = []
    for key, value in case.expect.items():
        if isinstance(value, Enum) and value.text == "" or key.endswith("_offset") and value == 0:
            continue  # unset: the option's default
        if value == "absent" or value is False or key in PREFERENCE_FORMATS or key.startswith("enforce_"):
            continue  # defaults, or judged by the answer's format
        if value == "present" or key not in KEY_OPTIONS:
            unspelled.append(key)
            continue
        option, position = KEY_OPTIONS[key]
        args = options.setdefault(option, [""] * 6)
        args[position] = argument_text(value)
    parts = []
    for option, args in options.items():
        while args and args[-1] == "":
            args.pop()
        parts.append(f"{option}:{':'.join(args)}")
    return "/".join(parts), unspelled


def expected_type(case):
    for key, mime in PREFERENCE_FORMATS.items():
        if case.expect.get(key) is True:
            return mime
    return None


def source_start(case):
    separator = case.config.get("ArgumentsSeparator", ":")
    segments = case.path.lstrip("/").split("/")
    return segments, next(i for i, part in enumerate(segments) if part == "plain" or separator not in part)


def own_options(case):
    """The case's own option segments, where the default settings read them as the case's server
    does (not preset names, not another separator): the reference repeats them, and the options
    the test checks, written out after them, must then change nothing."""
    if case.config.get("OnlyPresets") or "ArgumentsSeparator" in case.config:
        return []
    segments, start = source_start(case)
    return [part for part in segments[:start] if part.split(":")[0] not in ("preset", "pr")]


def reference_source(case):
    """The source part of the case's reference request: the source the test expects, or else the
    case's own source part (plain or base64, with its extension) as the default settings read it."""
    if case.source is not None:
        return f"plain/{case.source}"
    segments, start = source_start(case)
    return "/".join(segments[start:])


def request_path(case):
    return "/insecure" + (case.path if case.path.startswith("/") else "/" + case.path)


def judge(case, origin_prefix):
    problems = []
    if case.startup_only:
        started = case.answer is not None and case.answer != "refused"
        if case.error is True and started:
            problems.append("the server started with presets imgproxy refuses")
        if case.error is False and not started:
            problems.append(f"the server refused the presets: {case.answer_detail}")
        if case.preset is not None and started and case.reference is not None:
            if case.answer[0] != 200 or case.answer[2] != case.reference[2]:
                problems.append(f"preset answers {case.answer[0]}, not as its options written out ({case.reference[0]})")
        return problems
    status, headers, body = case.answer
    if case.error:
        if not 400 <= status < 500:
            problems.append(f"status {status} where imgproxy refuses the URL ({case.message or 'an error'})")
        return problems
    if status != 200:
        return [f"status {status}: {error_message(body)}"]
    if case.source is not None:
        wanted = case.source[len(origin_prefix):] if case.source.startswith(origin_prefix) else None
        if wanted is None:
            problems.append(f"expected source {case.source} is not on the origin")
        elif wanted not in case.asked:
            problems.append(f"the origin was asked {case.asked}, not {wanted}")
    mime = expected_type(case)
    content_type = {k.lower(): v for k, v in headers.items()}.get("content-type", "")
    if mime and content_type != mime:
        problems.append(f"answered {content_type}, expected {mime}")
    if case.reference is not None and not mime:
        ref_status, _, ref_body = case.reference
        if ref_status != 200:
            problems.append(f"the explicit options answered {ref_status}: {error_message(ref_body)}")
        elif ref_body != body:
            problems.append(f"answer differs from the expected options' ({case.explicit or 'none'} after the URL's own)")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loupe", required=True)
    parser.add_argument("--imgproxy-repo", required=True)
    parser.add_argument("--test-images", required=True, help="imgproxy/test-images' bare git mirror (its jpg/jpg.jpg is the origin's image)")
    parser.add_argument("--require-all", action="store_true", help="exit 1 unless every case passes")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    repo = Repository(args.imgproxy_repo)
    # A 600×800 JPEG: large enough that the sizes, crops and client hints the tests name change it.
    origin = Origin(Repository(args.test_images).show("jpg/jpg.jpg"))
    origin_host = f"127.0.0.1:{origin.port}"
    origin_prefix = f"http://{origin_host}"
    try:
        cases = read_cases(repo, origin_host)
    except GoUnsupported as error:
        print(f"could not read imgproxy's tests: {error}")
        origin.close()
        return 2
    for case in cases:
        if not case.startup_only:
            case.explicit, case.unspelled = explicit_options(case)
    if args.list:
        for case in cases:
            print(case.label(), case.path, case.error, case.source, dict(case.expect), case.config,
                  None if case.startup_only else case.explicit)
        origin.close()
        return 0

    log_path = os.path.join(tempfile.gettempdir(), "imgproxy-parser-loupe.log")
    groups = collections.OrderedDict()
    for case in cases:
        client_env, headers = client(case.features) if not case.startup_only else ({}, {})
        env = environment(case.config)
        env.update(client_env)
        case.headers = headers
        groups.setdefault(tuple(sorted(env.items())), []).append(case)
    try:
        for env_items, group in groups.items():
            server = LoupeServer(args.loupe, dict(env_items), log_path)
            try:
                for case in group:
                    if server.failure:
                        case.answer = "refused" if case.startup_only else (0, {}, server.failure.encode())
                        case.answer_detail = server.failure
                        continue
                    if case.startup_only:
                        case.answer = server.get(f"/insecure/preset:test/plain/{origin_prefix}/x.jpg") \
                            if case.preset is not None else (200, {}, b"")
                        continue
                    origin.asked.clear()
                    case.answer = server.get(request_path(case), case.headers)
                    case.asked = list(origin.asked)
            finally:
                server.close()
        reference = LoupeServer(args.loupe, dict(BASE_ENVIRONMENT), log_path)
        try:
            for case in cases:
                if case.startup_only:
                    if case.preset is not None:
                        options = "/".join(f"{o.fields['Name']}:{':'.join(o.fields['Args'])}" for o in case.preset)
                        case.reference = reference.get(f"/insecure/{options}/plain/{origin_prefix}/x.jpg")
                    continue
                if case.error or not isinstance(case.answer, tuple) or case.answer[0] != 200:
                    continue
                if not case.explicit and case.source is None:
                    continue  # the test checks nothing a URL option spells: only that the URL is taken
                options = "".join(part + "/" for part in own_options(case) + [case.explicit] if part)
                case.reference = reference.get(f"/insecure/{options}{reference_source(case)}")
        finally:
            reference.close()
    finally:
        origin.close()

    passed = collections.Counter()
    totals = collections.Counter()
    failures = []
    unjudged = []
    for case in cases:
        problems = judge(case, origin_prefix)
        totals[case.file] += 1
        if problems:
            failures.append((case, problems))
        else:
            passed[case.file] += 1
        if not case.startup_only and case.unspelled:
            unjudged.append((case, case.unspelled))
    print(f"imgproxy {repo.head()} URL-parser tests, {args.loupe}")
    for file in FILES:
        print(f"  {file}_test.go: {passed[file]}/{totals[file]}")
    print(f"TOTAL {sum(passed.values())}/{sum(totals.values())}")
    for case, problems in failures:
        print(f"FAIL {case.label()} {case.path or ''}: {'; '.join(problems)}")
    for case, keys in unjudged:
        print(f"NOTE {case.label()}: not visible over HTTP, not judged: {', '.join(keys)}")
    return 1 if args.require_all and failures else 0


if __name__ == "__main__":
    sys.exit(main())
