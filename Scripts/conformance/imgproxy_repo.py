"""imgproxy 4's repository as the conformance runners read it, and a `loupe serve` to ask.

Reads files from the bare git mirrors (imgproxy's and its test-images'), the names its tests use
(gravity and resize types, image types, colours, interpretations) from imgproxy's own source, and
the pieces of Go's library the tests call (fmt, strings, the options builder). Starts `loupe serve`
on a free loopback port with a given environment and talks HTTP to it, and an origin on loopback
for sources that are URLs.
"""

import base64
import http.server
import json
import os
import re
import socket
import subprocess
import threading
import time
import urllib.parse
import urllib.request

from go_subset import Enum, GoUnsupported, Struct, go_format, go_value_text, parse_file


class Repository:
    """One bare git mirror, read at its HEAD."""

    def __init__(self, git_dir):
        self.git_dir = git_dir

    def show(self, path):
        return subprocess.run(["git", f"--git-dir={self.git_dir}", "show", f"HEAD:{path}"],
                              check=True, capture_output=True).stdout

    def text(self, path):
        return self.show(path).decode("utf-8")

    def files(self, folder):
        out = subprocess.run(["git", f"--git-dir={self.git_dir}", "ls-tree", "--name-only", "HEAD", folder + "/"],
                             check=True, capture_output=True, text=True).stdout
        return [line for line in out.splitlines() if line]

    def head(self):
        return subprocess.run(["git", f"--git-dir={self.git_dir}", "rev-parse", "--short", "HEAD"],
                              check=True, capture_output=True, text=True).stdout.strip()


class Names:
    """Constants the tests name, with their String() texts, read from imgproxy's source."""

    def __init__(self, repo):
        self.enums = {}
        gravity = repo.text("processing/gravity_type.go")
        for key, name in re.findall(r'"(\w+)":\s*(Gravity\w+)', gravity):
            self.enums[f"processing.{name}"] = Enum(f"processing.{name}", key)
        for name in re.findall(r"\b(Gravity\w+)\b", gravity):
            self.enums.setdefault(f"processing.{name}", Enum(f"processing.{name}", ""))
        resize = repo.text("processing/resize_type.go")
        for key, name in re.findall(r'"([\w-]+)":\s*(Resize\w+)', resize):
            self.enums[f"processing.{name}"] = Enum(f"processing.{name}", key)
        types = repo.text("imagetype/defs.go")
        for name, text in re.findall(r'(\w+)\s*=\s*RegisterType\(&TypeDesc\{\s*String:\s*"(\w+)"', types):
            self.enums[f"imagetype.{name}"] = Enum(f"imagetype.{name}", text)
        self.enums["imagetype.Unknown"] = Enum("imagetype.Unknown", "")
        interpretation = repo.text("vips/interpretation.go")
        for name in re.findall(r"\b(Interpretation\w+)\s*=", interpretation):
            self.enums[f"vips.{name}"] = Enum(f"vips.{name}", name)
        self.colors = {}
        for name, r, g, b in re.findall(r"(\w+)\s*=\s*RGB\{(\d+),\s*(\d+),\s*(\d+)\}", repo.text("vips/color/color.go")):
            self.colors[f"color.{name}"] = Struct("color.RGB", {"R": int(r), "G": int(g), "B": int(b)})

    def zero(self, type_name):
        return {
            "processing.GravityType": self.enums["processing.GravityUnknown"],
            "processing.ResizeType": self.enums["processing.ResizeFit"],
            "imagetype.Type": self.enums["imagetype.Unknown"],
            "vips.Interpretation": self.enums["vips.InterpretationMultiBand"],
        }.get(type_name)


class Buffer:
    """bytes.Buffer / strings.Builder."""

    def __init__(self, text=""):
        self.text = text


class OptionArgs:
    """testutil.OptionArgs: up to 32 positional arguments, trailing empty ones dropped."""

    def __init__(self):
        self.args = [""] * 32

    def text(self):
        args = list(self.args)
        while args and args[-1] == "":
            args.pop()
        return ":".join(args)


class OptionsBuilder:
    """testutil.OptionsBuilder: options by name, joined with '/' (Go's map order; here insertion)."""

    def __init__(self):
        self.options = {}


class GoLibrary:
    """The functions and methods of Go's library and imgproxy's testutil that tests call."""

    def __init__(self, names):
        self.names = names

    def resolve(self, name):
        if name in self.names.enums:
            return self.names.enums[name]
        if name in self.names.colors:
            return self.names.colors[name]
        functions = {
            "fmt.Sprintf": lambda template, *args: go_format(template, args),
            "fmt.Fprintf": self._fprintf,
            "strings.CutPrefix": lambda text, prefix: (text[len(prefix):], True) if text.startswith(prefix) else (text, False),
            "strings.ReplaceAll": lambda text, old, new: text.replace(old, new),
            "strconv.Itoa": str,
            "bytes.NewBuffer": lambda _: Buffer(),
            "testutil.NewOptionsBuilder": OptionsBuilder,
            "base64.RawURLEncoding": "base64.RawURLEncoding",
            "base64.URLEncoding": "base64.URLEncoding",
            "url.PathEscape": lambda text: urllib.parse.quote(text, safe="-_.~!$&'()*+,;=:@"),
            "regexp.MustCompile": lambda pattern: ("regexp", pattern),
            "time.Unix": lambda seconds, nanos: ("time", seconds),
        }
        if name in functions:
            return functions[name]
        raise KeyError(name)

    def _fprintf(self, buffer, template, *args):
        buffer.text += go_format(template, args)
        return None

    def zero(self, type_name):
        if type_name in ("strings.Builder", "bytes.Buffer"):
            return Buffer()
        return self.names.zero(type_name)

    def composite(self, type_name, elements):
        raise GoUnsupported(f"literal of {type_name}")

    def attribute(self, base, name):
        raise GoUnsupported(f"field {name} of {base!r}")

    def store(self, holder, name, value):
        raise GoUnsupported(f"store {name} on {holder!r}")

    def call_method(self, target, name, args, interpreter):
        if isinstance(target, OptionsBuilder):
            if name == "Add":
                return target.options.setdefault(args[0], OptionArgs())
            if name == "String":
                return "/".join(f"{key}:{value.text()}" for key, value in target.options.items())
        if isinstance(target, OptionArgs):
            if name == "Set":
                target.args[args[0]] = go_value_text(args[1])
                return target
            if name == "String":
                return target.text()
        if isinstance(target, Buffer):
            if name == "WriteString":
                target.text += args[0]
                return None
            if name == "String":
                return target.text
        if isinstance(target, Enum) and name == "String":
            return target.text
        if isinstance(target, Struct) and target.type_name == "color.RGB" and name == "String":
            return "#%02x%02x%02x" % (target.fields["R"], target.fields["G"], target.fields["B"])
        if target in ("base64.RawURLEncoding", "base64.URLEncoding") and name == "EncodeToString":
            data = args[0] if isinstance(args[0], bytes) else str(args[0]).encode()
            encoded = base64.urlsafe_b64encode(data).decode()
            return encoded.rstrip("=") if target == "base64.RawURLEncoding" else encoded
        raise GoUnsupported(f"method {name} of {target!r}")


def load_package(repo, paths):
    return [parse_file(repo.text(path)) for path in paths]


# ---------------------------------------------------------------------------------------------
# loupe serve


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LoupeServer:
    """`loupe serve` on 127.0.0.1 with `environment` added to this process's (IMGPROXY_* and LOUPE_*)."""

    def __init__(self, binary, environment, log_path):
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("IMGPROXY_", "LOUPE_"))}
        env.update(environment)
        env["LOUPE_HOST"] = "127.0.0.1"
        env["LOUPE_PORT"] = str(self.port)
        self.log = open(log_path, "ab")
        self.process = subprocess.Popen([binary, "serve"], env=env, stdout=self.log, stderr=self.log)
        self.failure = None
        # Readiness: /health answers once the server listens; bounded to 60 s.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self.failure = f"loupe serve exited with {self.process.returncode} (log: {log_path})"
                return
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2):
                    return
            except OSError:
                time.sleep(0.05)
        self.failure = "loupe serve did not listen within 60 s"

    def get(self, path, headers=None):
        """(status, headers, body) of GET path."""
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=120) as answer:
                return answer.status, dict(answer.headers), answer.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    def close(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def error_message(body):
    try:
        return json.loads(body).get("message", "")
    except (ValueError, AttributeError):
        return body[:200].decode("utf-8", "replace")


class Origin:
    """An HTTP origin on 127.0.0.1 answering every GET with one JPEG, recording the paths asked."""

    def __init__(self, body):
        self.asked = []
        origin = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                origin.asked.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/jpeg")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
