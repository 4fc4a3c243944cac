"""One imgproxy URL path made by the PyPI `imgproxy` builder, for loupe serve's environment tests.

Usage: imgproxy_url.py KEY_HEX SALT_HEX SPEC_JSON ; prints the path (what follows the host).
SPEC_JSON holds the builder's own parameters: "source" (its image_url) and any of "width",
"height", "resizing_type", "gravity", "enlarge", "extension", "advanced" (a list of options).
With "signature_size", the signature is cut to that many bytes, as imgproxy's
IMGPROXY_SIGNATURE_SIZE asks of the clients that sign for it (the builder has no such parameter).
"""
import base64
import json
import sys

from imgproxy import ImgProxy

key, salt, spec = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
source = spec.pop("source")
size = spec.pop("signature_size", None)
path = ImgProxy(source, key=key, salt=salt, **spec)()
if size is not None:
    signature, rest = path[1:].split("/", 1)
    digest = base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4))
    path = "/" + base64.urlsafe_b64encode(digest[:size]).rstrip(b"=").decode() + "/" + rest
print(path)
