"""An S3 client (boto3) for the gateway of Scripts/s3/gateway.sh: the tests put their objects
with it, and `check` shows that the gateway behaves as S3 does on what Loupe relies on.
Runs with the conformance venv's Python (Scripts/conformance/venv.sh):
  .venv-conformance/bin/python Scripts/s3/client.py FOLDER check
  .venv-conformance/bin/python Scripts/s3/client.py FOLDER put BUCKET KEY FILE [--versioned] [--cache-control VALUE]
      prints {"etag": ..., "versionId": ...} (versionId only in a versioned bucket)
FOLDER is the gateway's folder: its `endpoint` and `credentials` files name the server and keys.
"""
import configparser
import json
import os
import sys

import boto3
import botocore.config
import botocore.exceptions


def client(folder, secret=None):
    endpoint = open(os.path.join(folder, "endpoint")).read().strip()
    credentials = configparser.ConfigParser()
    credentials.read(os.path.join(folder, "credentials"))
    profile = credentials["default"]
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id=profile["aws_access_key_id"],
        aws_secret_access_key=secret or profile["aws_secret_access_key"],
        config=botocore.config.Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}),
    )


def ensure_bucket(s3, bucket, versioned):
    try:
        s3.create_bucket(Bucket=bucket)
    except s3.exceptions.BucketAlreadyOwnedByYou:
        pass
    if versioned:
        s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})


def put(folder, bucket, key, path, versioned, cache_control):
    s3 = client(folder)
    ensure_bucket(s3, bucket, versioned)
    extra = {"CacheControl": cache_control} if cache_control else {}
    with open(path, "rb") as body:
        answer = s3.put_object(Bucket=bucket, Key=key, Body=body.read(), **extra)
    result = {"etag": answer["ETag"]}
    if "VersionId" in answer:
        result["versionId"] = answer["VersionId"]
    print(json.dumps(result))


def expect(condition, what):
    if not condition:
        sys.exit(f"check failed: {what}")
    print(f"ok: {what}")


def check(folder):
    s3 = client(folder)
    ensure_bucket(s3, "gateway-check", versioned=True)
    body = bytes(range(256)) * 64
    first = s3.put_object(Bucket="gateway-check", Key="dir/a b+ü.bin", Body=body)
    second = s3.put_object(Bucket="gateway-check", Key="dir/a b+ü.bin", Body=body[:100])
    got = s3.get_object(Bucket="gateway-check", Key="dir/a b+ü.bin")
    expect(got["Body"].read() == body[:100], "get returns the latest version's bytes")
    old = s3.get_object(Bucket="gateway-check", Key="dir/a b+ü.bin", VersionId=first["VersionId"])
    expect(old["Body"].read() == body and first["VersionId"] != second["VersionId"],
           "get with versionId returns the first version")
    ranged = s3.get_object(Bucket="gateway-check", Key="dir/a b+ü.bin", VersionId=first["VersionId"], Range="bytes=10-19")
    expect(ranged["Body"].read() == body[10:20] and ranged["ResponseMetadata"]["HTTPStatusCode"] == 206,
           "a range answers 206 with those bytes")
    try:
        s3.get_object(Bucket="gateway-check", Key="dir/a b+ü.bin", IfNoneMatch=second["ETag"])
        expect(False, "If-None-Match with the current ETag answers 304")
    except botocore.exceptions.ClientError as error:
        expect(error.response["ResponseMetadata"]["HTTPStatusCode"] == 304, "If-None-Match with the current ETag answers 304")
    try:
        s3.get_object(Bucket="gateway-check", Key="missing")
        expect(False, "a missing key answers NoSuchKey")
    except botocore.exceptions.ClientError as error:
        expect(error.response["Error"]["Code"] == "NoSuchKey", "a missing key answers NoSuchKey")
    try:
        client(folder, secret="wrong-secret").get_object(Bucket="gateway-check", Key="dir/a b+ü.bin")
        expect(False, "a wrong secret answers SignatureDoesNotMatch")
    except botocore.exceptions.ClientError as error:
        expect(error.response["Error"]["Code"] == "SignatureDoesNotMatch", "a wrong secret answers SignatureDoesNotMatch")


def main(arguments):
    if len(arguments) >= 2 and arguments[1] == "check":
        check(arguments[0])
    elif len(arguments) >= 5 and arguments[1] == "put":
        options = arguments[5:]
        cache_control = options[options.index("--cache-control") + 1] if "--cache-control" in options[:-1] else None
        put(arguments[0], arguments[2], arguments[3], arguments[4], "--versioned" in options, cache_control)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
