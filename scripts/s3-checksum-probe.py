#!/usr/bin/env python3
"""Which payload checks does an S3 server enforce on PutObject? (what a one-pass upload can rely on)

Sends five PUTs to ENDPOINT/BUCKET, each signed with SigV4 by botocore (the AWS CLI's library) with the
x-amz-content-sha256 value given here, and prints the server's answer:

  1. a plain PUT whose signed x-amz-content-sha256 is the body's hash (control: must be 200);
  2. the same with a wrong signed hash (does the server verify the signed hash?);
  3. UNSIGNED-PAYLOAD with a right, then 4. a wrong x-amz-checksum-sha256 header (is the refused body
     stored anyway? read back);
  5. STREAMING-UNSIGNED-PAYLOAD-TRAILER: an aws-chunked body with an x-amz-checksum-sha256 trailer,
     right, then wrong (is the trailer accepted, and is it verified?), each read back with a GET;
  6. UNSIGNED-PAYLOAD with a right, then a wrong x-amz-checksum-crc32c header on a PutObject;
  7. a multipart upload created with x-amz-checksum-algorithm: CRC32C whose UNSIGNED-PAYLOAD part
     carries a right, then a wrong x-amz-checksum-crc32c (does the server verify a part's CRC32C?),
     completed with the parts' ChecksumCRC32C and read back (idem's one-pass multipart upload).

A server that accepts a wrong trailer cannot be trusted to refuse a file that changed during a one-pass
upload: idem would need its own check there. Creates BUCKET; writes only under it.

Usage: scripts/s3-checksum-probe.py ENDPOINT BUCKET   (credentials from AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY; region us-east-1). Needs botocore (pip install botocore, or the AWS CLI v1's).
"""
import base64
import hashlib
import os
import sys

from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.httpsession import URLLib3Session


class KeepSha(S3SigV4Auth):
    """Signs the x-amz-content-sha256 the caller set (botocore would put the body's hash there)."""

    def _modify_request_before_signing(self, request):
        mine = request.headers.get("x-amz-content-sha256")
        super()._modify_request_before_signing(request)
        if mine is not None:
            del request.headers["X-Amz-Content-SHA256"]
            request.headers["X-Amz-Content-SHA256"] = mine


def crc32c(data):
    """CRC-32C (Castagnoli), as S3's x-amz-checksum-crc32c: reflected, polynomial 0x82F63B78."""
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def b64crc(value):
    return base64.b64encode(value.to_bytes(4, "big")).decode()


def main():
    endpoint, bucket = sys.argv[1].rstrip("/"), sys.argv[2]
    creds = Credentials(os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"])
    session = URLLib3Session()

    def send(method, path, body=b"", headers=None):
        req = AWSRequest(method=method, url=endpoint + path, data=body, headers=headers or {})
        KeepSha(creds, "s3", "us-east-1").add_auth(req)
        resp = session.send(req.prepare())
        return resp.status_code, resp.content

    def show(name, status, body):
        code = body.split(b"<Code>")[1].split(b"</Code>")[0].decode() if b"<Code>" in body else ""
        print(f"{name}: {status} {code}".rstrip())

    show("create bucket", *send("PUT", "/" + bucket))
    data = b"idem checksum probe " * 1200
    sha_hex = hashlib.sha256(data).hexdigest()
    right = base64.b64encode(hashlib.sha256(data).digest()).decode()
    wrong = base64.b64encode(hashlib.sha256(b"other bytes").digest()).decode()
    show("1 signed hash, right", *send("PUT", f"/{bucket}/1", data, {"x-amz-content-sha256": sha_hex}))
    show("2 signed hash, wrong", *send("PUT", f"/{bucket}/2", data,
                                      {"x-amz-content-sha256": hashlib.sha256(b"x").hexdigest()}))
    show("3 UNSIGNED-PAYLOAD, x-amz-checksum-sha256 right", *send(
        "PUT", f"/{bucket}/3", data, {"x-amz-content-sha256": "UNSIGNED-PAYLOAD", "x-amz-checksum-sha256": right}))
    show("4 UNSIGNED-PAYLOAD, x-amz-checksum-sha256 wrong", *send(
        "PUT", f"/{bucket}/4", data, {"x-amz-content-sha256": "UNSIGNED-PAYLOAD", "x-amz-checksum-sha256": wrong}))
    got_status, got = send("GET", f"/{bucket}/4")
    print(f"  read back: {got_status} (a refused body must not be stored: 404)")
    for name, checksum in (("right", right), ("wrong", wrong)):
        body = b""
        for i in range(0, len(data), 8192):
            chunk = data[i:i + 8192]
            body += b"%x\r\n" % len(chunk) + chunk + b"\r\n"
        body += b"0\r\nx-amz-checksum-sha256:" + checksum.encode() + b"\r\n\r\n"
        headers = {"x-amz-content-sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER", "Content-Encoding": "aws-chunked",
                   "x-amz-decoded-content-length": str(len(data)), "x-amz-trailer": "x-amz-checksum-sha256"}
        status, reply = send("PUT", f"/{bucket}/5-{name}", body, headers)
        show(f"5 STREAMING-UNSIGNED-PAYLOAD-TRAILER, trailer {name}", status, reply)
        if status == 200:
            got_status, got = send("GET", f"/{bucket}/5-{name}")
            print(f"  read back: {got_status}, {len(got)} bytes, the bytes sent: {got == data}")

    crc_right, crc_wrong = b64crc(crc32c(data)), b64crc(crc32c(b"other bytes"))
    for name, checksum in (("right", crc_right), ("wrong", crc_wrong)):
        show(f"6 UNSIGNED-PAYLOAD, x-amz-checksum-crc32c {name}", *send(
            "PUT", f"/{bucket}/6-{name}", data, {"x-amz-content-sha256": "UNSIGNED-PAYLOAD",
                                                 "x-amz-checksum-crc32c": checksum}))
    for name, checksum in (("right", crc_right), ("wrong", crc_wrong)):
        key = f"/{bucket}/7-{name}"
        status, reply = send("POST", key + "?uploads", b"", {"x-amz-checksum-algorithm": "CRC32C"})
        show(f"7 CreateMultipartUpload, x-amz-checksum-algorithm CRC32C ({name})", status, reply)
        upload = reply.split(b"<UploadId>")[1].split(b"</UploadId>")[0].decode()
        status, reply = send("PUT", f"{key}?partNumber=1&uploadId={upload}", data,
                             {"x-amz-content-sha256": "UNSIGNED-PAYLOAD", "x-amz-checksum-crc32c": checksum})
        show(f"7 UploadPart UNSIGNED-PAYLOAD, x-amz-checksum-crc32c {name}", status, reply)
        if status != 200:
            send("DELETE", f"{key}?uploadId={upload}")
            continue
        etag = None
        status2, got = send("GET", f"{key}?uploadId={upload}")
        for k, v in (("ETag", b"<ETag>"),):
            etag = got.split(v)[1].split(b"</ETag>")[0].decode().replace("&quot;", '"') if v in got else None
        xml = ("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>%s</ETag>"
               "<ChecksumCRC32C>%s</ChecksumCRC32C></Part></CompleteMultipartUpload>" % (etag, checksum))
        status, reply = send("POST", f"{key}?uploadId={upload}", xml.encode())
        show(f"7 CompleteMultipartUpload with ChecksumCRC32C ({name})", status, reply)
        if status == 200:
            got_status, got = send("GET", key)
            print(f"  read back: {got_status}, {len(got)} bytes, the bytes sent: {got == data}")


if __name__ == "__main__":
    main()
