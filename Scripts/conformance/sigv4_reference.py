"""botocore's AWS Signature Version 4 for S3 requests: the reference Loupe's S3RequestSigner
is compared with (Tests/LoupeLoadingTests/S3RequestSignerTests.swift).

Argument: a JSON list of cases, each {"endpoint", "bucket", "key", "versionId" (optional),
"pathStyle", "region", "accessKey", "secretKey", "token" (optional), "epochSeconds" (the
signing time), "headers" ({name: value}), "method" (optional, GET by default) and "body" (optional
text, a PUT's, whose SHA-256 botocore signs)}. The URL is built here, the way boto3 builds
it (the key quoted with urllib's `quote(key, safe="/~")`), so the comparison covers the key's
encoding too. Prints a JSON list of {"url", "authorization"}.
"""
import datetime
import json
import sys
from unittest import mock
from urllib.parse import quote, urlsplit

import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials


def url_for(case):
    parts = urlsplit(case["endpoint"])
    key = quote(case["key"], safe="/~")
    if case["pathStyle"]:
        url = f"{parts.scheme}://{parts.netloc}/{case['bucket']}/{key}"
    else:
        url = f"{parts.scheme}://{case['bucket']}.{parts.netloc}/{key}"
    if case.get("versionId") is not None:
        url += "?versionId=" + quote(case["versionId"], safe="~")
    return url


def sign(case):
    url = url_for(case)
    body = case.get("body")
    request = AWSRequest(method=case.get("method", "GET"), url=url, headers=dict(case.get("headers", {})),
                         data=body.encode() if body is not None else None)
    credentials = Credentials(case["accessKey"], case["secretKey"], case.get("token"))
    moment = datetime.datetime.fromtimestamp(case["epochSeconds"], datetime.timezone.utc)
    with mock.patch.object(botocore.auth, "get_current_datetime", return_value=moment):
        botocore.auth.S3SigV4Auth(credentials, "s3", case["region"]).add_auth(request)
    return {"url": url, "authorization": request.headers["Authorization"]}


if __name__ == "__main__":
    print(json.dumps([sign(case) for case in json.loads(sys.argv[1])]))
