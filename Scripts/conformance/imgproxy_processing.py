#!/usr/bin/env python3
"""imgproxy 4's processing tests (processing/*_test.go) run against `loupe serve` over HTTP.

The rows are read from imgproxy's repository at run time (go_subset.py interprets the test
files: their tables, loops, URLOptions()/ImagePath() methods and suite set-ups); nothing is copied.
Each request a test makes is a row. Its images come from imgproxy's testdata and the test-images
mirror, written to a temporary folder served as `local:///`; the settings a suite changes
(watermark path, preserve-HDR, linear colourspace) become imgproxy's environment variables of a
server started for them. A row passes when the answer has the test's status, the pixel size it
states (read from the image's header), the interpretation it states (sRGB, B&W, RGB16, Grey16:
channels and bit depth from the header), and the relations the test asserts between answers hold
(same or different pixels, same bytes). The suite's comparisons against stored pixel hashes
(testdata/test-hashes) are not made: they hold libvips' exact pixels, which Loupe does not claim.

One difference of spelling: imgproxy's tests sign their paths `/unsafe/` (any signature passes
an imgproxy without a key); Loupe's unsigned placeholder is `/insecure/` (`/unsafe/` is thumbor's
dialect), so the runner sends `/insecure/`.

    python3 Scripts/conformance/imgproxy_processing.py --loupe .build/release/loupe \
        --imgproxy-repo /path/imgproxy.git --test-images /path/test-images.git [--minimum 0.98]

Prints each file's passes, the total and every failing row with what differed; exits 1 when the
share passed is below --minimum, 2 when the tests could not be read.
"""

import argparse
import collections
import hashlib
import io
import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from go_subset import GoUnsupported, Interpreter, Struct  # noqa: E402
from imgproxy_repo import GoLibrary, LoupeServer, Names, Repository, error_message, load_package  # noqa: E402

FILES = ["apply_filters", "colorspace", "crop", "extend", "flatten", "padding", "processing",
         "rotate_and_flip", "trim", "watermark"]

# servertest.Suite's configuration (testutil/servertest/suite.go), as imgproxy's variables.
BASE_ENVIRONMENT = {
    "IMGPROXY_ALLOW_SECURITY_OPTIONS": "true",
    "IMGPROXY_MAX_SRC_RESOLUTION": "50",
    "IMGPROXY_MAX_SRC_FILE_SIZE": str(10 * 1024 * 1024),
    "IMGPROXY_MAX_ANIMATION_FRAMES": "100",
    "LOUPE_ALLOW_UNSIGNED": "true",
}

# Fields of imgproxy.Config the suites set, and the variable each is read from (the
# `IMGPROXY_X.Parse(&c.Field)` lines of processing/config.go and auximageprovider/static_config.go).
CONFIG_VARIABLES = {
    "WatermarkImage.Path": "IMGPROXY_WATERMARK_PATH",
    "Processing.PreserveHDR": "IMGPROXY_PRESERVE_HDR",
    "Processing.UseLinearColorspace": "IMGPROXY_USE_LINEAR_COLORSPACE",
}


class Row:
    def __init__(self, file, name, path, image, config):
        self.file = file
        self.name = name
        self.path = path
        self.image = image
        self.config = dict(config)
        self.status = 200
        self.size = None
        self.interpretation = None
        self.relations = []  # (kind, other row) checked when this row is judged
        self.answer = None

    def label(self):
        return f"{self.file}_test.go {self.name}"


class TestDataPath:
    def __init__(self, path):
        self.path = path


class ConfigPath:
    def __init__(self, suite, prefix):
        self.suite = suite
        self.prefix = prefix


class Reference:
    """What a test holds of an answer: the answer (Reader), its hash, its status."""

    def __init__(self, kind, row, other=None):
        self.kind = kind
        self.row = row
        self.other = other


class Suite:
    def __init__(self, type_name, file):
        self.type_name = type_name
        self.file = file
        self.fields = {}
        self.config = {}
        self.names = []


class ProcessingHost(GoLibrary):
    """Runs a suite's test methods, turning its requests into rows."""

    def __init__(self, names):
        super().__init__(names)
        self.interpreter = None
        self.rows = []

    def resolve(self, name):
        special = {
            "testutil.NewLazySuiteObj": lambda *args: (None, None),
            "testutil.NewImageHashCacheMatcher": lambda *args: None,
            "testutil.HashTypeSHA256": 0,
            "testutil.HashTypeDct": 1,
            "testutil.NewImageHash": lambda reader, kind: (Reference("hash", reader.row), None),
            "testutil.ReadersEqual": lambda t, a, b: Reference("same-bytes", a.row, b.row),
        }
        if name in special:
            return special[name]
        return super().resolve(name)

    def attribute(self, base, name):
        if isinstance(base, Suite):
            if name == "testSuite":
                return ("base", base)
            if name == "TestData":
                return ("testdata", base)
            return base.fields.get(name)
        if isinstance(base, ConfigPath):
            return ConfigPath(base.suite, f"{base.prefix}{name}.")
        if isinstance(base, Reference) and base.kind == "answer" and name == "StatusCode":
            return Reference("status", base.row)
        if isinstance(base, Reference) and name == "Body":
            return base
        return super().attribute(base, name)

    def store(self, holder, name, value):
        if isinstance(holder, Suite):
            holder.fields[name] = value
        elif isinstance(holder, ConfigPath):
            holder.suite.config[holder.prefix + name] = value
        else:
            super().store(holder, name, value)

    def call_method(self, target, name, args, interpreter):
        if isinstance(target, tuple) and target and target[0] == "base":
            if name in ("SetupSuite", "TearDownSuite", "SetupSubTest"):
                return None
            target = target[1]
        if isinstance(target, tuple) and target and target[0] == "testdata" and name == "Path":
            return TestDataPath(args[0])
        if isinstance(target, Suite):
            return self._suite_method(target, name, args)
        if isinstance(target, Reference):
            if name in ("Reader", "Close"):
                return target
            if name == "Distance" and target.kind == "hash":
                return (Reference("distance", target.row, args[0].row), None)
        if isinstance(target, tuple) and target and target[0] == "require":
            return self._require(name, args)
        if isinstance(target, tuple) and target and target[0] == "matcher":
            return None
        return super().call_method(target, name, args, interpreter)

    def _suite_method(self, suite, name, args):
        if name == "Run":
            suite.names.append(args[0])
            if (suite.type_name, "SetupSubTest") in self.interpreter.methods:
                self._call(suite, "SetupSubTest", [])
            try:
                self.interpreter.call_function(args[1][1], [], closure=args[1][2])
            finally:
                suite.names.pop()
            return None
        if name == "processImageAndCheck":
            case = args[0]
            row = self._row(suite, case.fields["opts"])
            size = case.fields["outSize"]
            row.size = (size.fields["width"], size.fields["height"])
            interpretation = case.fields.get("outInterpretation")
            if interpretation is not None and interpretation.name != "vips.InterpretationMultiBand":
                row.interpretation = interpretation.name.split("Interpretation")[-1]
            return None
        if name == "processImage":
            return Reference("answer", self._row(suite, args[0]))
        if name == "GET":
            row = Row(suite.file, self._name(suite), args[0], None, suite.config)
            self.rows.append(row)
            return Reference("answer", row)
        if name == "Config":
            return ConfigPath(suite, "")
        if name == "Require":
            return ("require",)
        if name == "T":
            return None
        if name == "ImageMatcher":
            return ("matcher",)
        if name in ("ResetLazyObjects", "AfterTest"):
            suite.config.clear()
            return None
        if (suite.type_name, name) in self.interpreter.methods:
            return self._call(suite, name, args)
        raise GoUnsupported(f"suite method {name}")

    def _call(self, suite, name, args):
        receiver, function = self.interpreter.methods[(suite.type_name, name)]
        return self.interpreter.call_function(function, args, receiver=(receiver, suite))

    def _name(self, suite):
        return "/".join([suite.test] + suite.names)

    def _row(self, suite, opts):
        options = self._opts_method(opts, "URLOptions")
        image = self._opts_method(opts, "ImagePath")
        row = Row(suite.file, self._name(suite), "/unsafe/" + options + "/plain/local:///" + image, image, suite.config)
        self.rows.append(row)
        return row

    def _opts_method(self, opts, name):
        receiver, function = self.interpreter.method(opts, name)
        return self.interpreter.call_function(function, [], receiver=(receiver, opts))

    def _require(self, name, args):
        if name in ("Zero", "NotZero") and isinstance(args[0], Reference) and args[0].kind == "distance":
            later, earlier = args[0].other, args[0].row
            later.relations.append(("same-pixels" if name == "Zero" else "different-pixels", earlier))
        elif name == "True" and isinstance(args[0], Reference) and args[0].kind == "same-bytes":
            args[0].other.relations.append(("same-bytes", args[0].row))
        elif name == "Equal":
            for index, value in enumerate(args[:2]):
                if isinstance(value, Reference) and value.kind == "status":
                    value.row.status = args[1 - index]
        return None


def read_rows(repo, names):
    paths = [f"processing/{name}_test.go" for name in FILES] + ["processing/suite_test.go"]
    decls = load_package(repo, paths)
    host = ProcessingHost(names)
    interpreter = Interpreter(decls, host)
    host.interpreter = interpreter
    for file, file_decls in zip(FILES, decls):
        suites = []
        for (type_name, method), _ in file_decls["methods"].items():
            if method.startswith("Test") and type_name not in suites:
                suites.append(type_name)
        for type_name in suites:
            suite = Suite(type_name, file)
            if (type_name, "SetupSuite") in interpreter.methods:
                host._call(suite, "SetupSuite", [])
            for (owner, method), (receiver, function) in file_decls["methods"].items():
                if owner != type_name or not method.startswith("Test"):
                    continue
                suite.test = method
                suite.names = []
                interpreter.call_function(function, [], receiver=(receiver, suite))
                suite.config.clear()  # LazySuite.AfterTest resets the configuration
    return host.rows


# ---------------------------------------------------------------------------------------------
# Answers


def header_facts(data):
    """(width, height, interpretation) from an image's header."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
        grey = colour in (0, 4)
        if depth == 16:
            return width, height, "Grey16" if grey else "RGB16"
        return width, height, "BW" if grey else "SRGB"
    if data.startswith(b"\xff\xd8"):
        pos = 2
        while pos + 4 <= len(data):
            marker, length = data[pos + 1], struct.unpack(">H", data[pos + 2:pos + 4])[0]
            if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
                height, width, components = struct.unpack(">HHB", data[pos + 5:pos + 10])
                return width, height, {1: "BW", 3: "SRGB", 4: "CMYK"}.get(components, "?")
            pos += 2 + length
        return None
    from PIL import Image
    with Image.open(io.BytesIO(data)) as image:
        return image.width, image.height, "BW" if image.mode in ("L", "LA", "1") else "SRGB"


def pixel_digest(data):
    from PIL import Image
    with Image.open(io.BytesIO(data)) as image:
        image.load()
        return hashlib.sha256(f"{image.mode}{image.size}".encode() + image.tobytes()).hexdigest()


def judge(row):
    """What differs between the row's expectation and its answer (empty when it passes)."""
    status, _, body = row.answer
    problems = []
    if status != row.status:
        detail = error_message(body) if status != 200 else ""
        return [f"status {status} (expected {row.status}) {detail}".rstrip()]
    if status != 200:
        return []
    try:
        facts = header_facts(body)
    except Exception as error:  # an answer Pillow cannot read is the row's failure, not the run's
        return [f"unreadable answer: {error}"]
    if facts is None:
        return ["no image header"]
    width, height, interpretation = facts
    if row.size and (width, height) != row.size:
        problems.append(f"size {width}x{height} (expected {row.size[0]}x{row.size[1]})")
    if row.interpretation and interpretation != row.interpretation:
        problems.append(f"interpretation {interpretation} (expected {row.interpretation})")
    for kind, other in row.relations:
        if other.answer is None or other.answer[0] != 200:
            problems.append(f"{kind} as {other.name}: that answer failed")
            continue
        if kind == "same-bytes":
            holds = body == other.answer[2]
        else:
            same = pixel_digest(body) == pixel_digest(other.answer[2])
            holds = same if kind == "same-pixels" else not same
        if not holds:
            problems.append(f"not {kind} as {other.name}")
    return problems


def extract_images(rows, imgproxy, test_images, root):
    wanted = {row.image for row in rows if row.image}
    for row in rows:
        wanted.update(value.path for value in row.config.values() if isinstance(value, TestDataPath))
    for path in sorted(wanted):
        target = os.path.join(root, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if path.startswith("test-images/"):
            data = test_images.show(path[len("test-images/"):])
        else:
            data = imgproxy.show("testdata/" + path)
        with open(target, "wb") as out:
            out.write(data)


def environment(config, root):
    env = dict(BASE_ENVIRONMENT)
    env["IMGPROXY_LOCAL_FILESYSTEM_ROOT"] = root
    for key, value in config.items():
        variable = CONFIG_VARIABLES.get(key)
        if variable is None:
            raise GoUnsupported(f"the tests set {key}, which the runner does not map to a variable")
        if isinstance(value, TestDataPath):
            value = os.path.join(root, value.path)
        elif isinstance(value, bool):
            value = "true" if value else "false"
        env[variable] = str(value)
    return env


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loupe", required=True, help="the loupe binary")
    parser.add_argument("--imgproxy-repo", required=True, help="imgproxy's bare git mirror")
    parser.add_argument("--test-images", required=True, help="imgproxy/test-images' bare git mirror")
    parser.add_argument("--minimum", type=float, default=0.0, help="share of rows that must pass (0–1)")
    parser.add_argument("--list", action="store_true", help="print the rows and their paths, request nothing")
    args = parser.parse_args()

    imgproxy = Repository(args.imgproxy_repo)
    test_images = Repository(args.test_images)
    try:
        rows = read_rows(imgproxy, Names(imgproxy))
    except GoUnsupported as error:
        print(f"could not read imgproxy's tests: {error}")
        return 2
    if args.list:
        for row in rows:
            print(row.label(), row.path, row.status, row.size, row.interpretation, row.config,
                  [(kind, other.name) for kind, other in row.relations])
        return 0

    with tempfile.TemporaryDirectory(prefix="imgproxy-processing-") as root:
        extract_images(rows, imgproxy, test_images, root)
        groups = collections.OrderedDict()
        for row in rows:
            key = tuple(sorted((k, getattr(v, "path", v)) for k, v in row.config.items()))
            groups.setdefault(key, []).append(row)
        log_path = os.path.join(tempfile.gettempdir(), "imgproxy-processing-loupe.log")
        for group in groups.values():
            server = LoupeServer(args.loupe, environment(group[0].config, root), log_path)
            try:
                if server.failure:
                    for row in group:
                        row.answer = (0, {}, server.failure.encode())
                    continue
                for row in group:
                    path = "/insecure/" + row.path[len("/unsafe/"):] if row.path.startswith("/unsafe/") else row.path
                    row.answer = server.get(path)
            finally:
                server.close()

    passed = collections.Counter()
    totals = collections.Counter()
    failures = []
    for row in rows:
        problems = judge(row)
        totals[row.file] += 1
        if problems:
            failures.append((row, problems))
        else:
            passed[row.file] += 1
    print(f"imgproxy {imgproxy.head()} processing tests, test-images {test_images.head()}, {args.loupe}")
    for file in FILES:
        print(f"  {file}_test.go: {passed[file]}/{totals[file]}")
    total_passed, total = sum(passed.values()), sum(totals.values())
    share = total_passed / total if total else 0.0
    print(f"TOTAL {total_passed}/{total} ({share:.1%})")
    for row, problems in failures:
        print(f"FAIL {row.label()} {row.path}: {'; '.join(problems)}")
    return 0 if share >= args.minimum else 1


if __name__ == "__main__":
    sys.exit(main())
