// MotoS3: moto's S3 server (PyPI moto[server]) on 127.0.0.1 with IAM authentication on, as a real S3 peer.
import Foundation

/// A moto_server whose first set-up calls (an IAM user with an s3:* policy, its access key, the bucket, the fixture
/// objects) are the only unauthenticated ones (`INITIAL_NO_AUTH_ACTION_COUNT`): every later request must carry a
/// valid SigV4 signature of that user, or moto answers 403 as S3 does. The set-up and listings go through boto3
/// (installed with moto). Not thread-safe: a test drives it from one thread.
public final class MotoS3 {
    /// The server process (its directory holds the fixtures and the log).
    public let peer: PeerProcess
    /// `http://127.0.0.1:PORT`.
    public let endpoint: String
    /// The bucket made at start.
    public let bucket: String
    /// The IAM user's credentials.
    public let accessKeyID: String
    /// The IAM user's secret.
    public let secretAccessKey: String
    /// The signing region.
    public let region = "us-east-1"

    /// Starts moto_server, makes the user, its key and `bucket`, and puts `objects` (key → bytes) into it.
    /// - Throws: ``PeerUnavailable`` when moto_server is not installed, ``PeerDidNotStart`` when it or the set-up
    ///   fails.
    public init(bucket: String = "images", objects: [String: Data] = [:]) throws {
        guard let server = Self.which("moto_server") else {
            throw PeerUnavailable(
                description: "moto_server is missing: pip install 'moto[server]' (scripts/setup.sh does)")
        }
        self.bucket = bucket
        peer = try PeerProcess(name: "moto")
        endpoint = "http://127.0.0.1:\(peer.port)"
        let fixtures = peer.path("fixtures")
        try FileManager.default.createDirectory(atPath: fixtures, withIntermediateDirectories: true)
        var manifest: [String] = []
        for (i, (key, data)) in objects.sorted(by: { $0.key < $1.key }).enumerated() {
            try data.write(to: URL(fileURLWithPath: fixtures + "/\(i)"))
            manifest.append("\(i)\t\(key)")
        }
        try peer.write("manifest.tsv", manifest.joined(separator: "\n"))
        try peer.write("setup.py", Self.setupScript)
        // create_user, put_user_policy, create_access_key, create_bucket, then one put_object per fixture.
        let setupCalls = 4 + objects.count
        try peer.start(
            server, ["-H", "127.0.0.1", "-p", String(peer.port)], package: "moto[server] (PyPI)",
            environment: ["INITIAL_NO_AUTH_ACTION_COUNT": String(setupCalls)])
        let out = try Self.python([peer.path("setup.py"), endpoint, bucket, peer.directory.path])
        let parts = out.split(separator: "\n").last?.split(separator: " ") ?? []
        guard parts.count == 2 else { throw PeerDidNotStart(description: "moto set-up failed: \(out)") }
        accessKeyID = String(parts[0])
        secretAccessKey = String(parts[1])
    }

    /// Every object under `prefix` (key → bytes), listed and read with the user's signed requests.
    public func objects(prefix: String = "") throws -> [String: Data] {
        let dir = peer.path("listing-\(UUID().uuidString)")
        _ = try Self.python(["-c", Self.listScript, endpoint, bucket, prefix, accessKeyID, secretAccessKey, dir])
        var result: [String: Data] = [:]
        let manifest = (try? String(contentsOfFile: dir + "/manifest.tsv", encoding: .utf8)) ?? ""
        for line in manifest.split(separator: "\n") {
            let cols = line.split(separator: "\t", maxSplits: 1)
            guard cols.count == 2 else { continue }
            result[String(cols[1])] = FileManager.default.contents(atPath: dir + "/" + cols[0])
        }
        return result
    }

    /// Puts `data` at `key` in `bucket` (made when missing) with the user's signed requests: a second bucket for
    /// tests that check a source never leaves the first.
    public func put(_ data: Data, bucket: String, key: String) throws {
        let file = peer.path("put-\(UUID().uuidString)")
        try data.write(to: URL(fileURLWithPath: file))
        _ = try Self.python(["-c", Self.putScript, endpoint, bucket, key, accessKeyID, secretAccessKey, file])
    }

    /// The `AWS_*` environment of the user, for a child process (`dwfetch`, `dwfetch serve`).
    public var environment: [String: String] {
        ["AWS_ACCESS_KEY_ID": accessKeyID, "AWS_SECRET_ACCESS_KEY": secretAccessKey, "AWS_REGION": region]
    }

    /// Stops the server (the bucket is gone with it).
    public func stop() { peer.stop() }

    static func which(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// Runs python3 with `arguments`; its stdout, or ``PeerDidNotStart`` with its stderr when it fails.
    public static func python(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PeerDidNotStart(
                description: "python3 failed: \(String(decoding: errors.suffix(1200), as: UTF8.self))")
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let setupScript = """
        import boto3, json, os, sys
        endpoint, bucket, root = sys.argv[1:4]
        kw = dict(
            endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="setup", aws_secret_access_key="setup")
        iam = boto3.client("iam", **kw)
        iam.create_user(UserName="dwwebimage")
        policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
        iam.put_user_policy(UserName="dwwebimage", PolicyName="s3", PolicyDocument=json.dumps(policy))
        key = iam.create_access_key(UserName="dwwebimage")["AccessKey"]
        s3 = boto3.client("s3", **kw)
        s3.create_bucket(Bucket=bucket)
        for line in open(os.path.join(root, "manifest.tsv")).read().splitlines():
            i, name = line.split("\\t", 1)
            s3.put_object(Bucket=bucket, Key=name, Body=open(os.path.join(root, "fixtures", i), "rb").read())
        print(key["AccessKeyId"], key["SecretAccessKey"])
        """

    private static let putScript = """
        import boto3, sys
        endpoint, bucket, key, access, secret, path = sys.argv[1:7]
        s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id=access,
                          aws_secret_access_key=secret)
        if bucket not in [b["Name"] for b in s3.list_buckets()["Buckets"]]:
            s3.create_bucket(Bucket=bucket)
        s3.put_object(Bucket=bucket, Key=key, Body=open(path, "rb").read())
        """

    private static let listScript = """
        import boto3, os, sys
        endpoint, bucket, prefix, key, secret, out = sys.argv[1:7]
        s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id=key,
                          aws_secret_access_key=secret)
        os.makedirs(out)
        lines = []
        # The whole bucket, filtered here: moto 5.2 computes the signature of a query holding "%2F" (a prefix with a
        # slash) differently from boto3 and refuses it.
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
            for obj in page.get("Contents", []):
                if not obj["Key"].startswith(prefix):
                    continue
                n = str(len(lines))
                open(os.path.join(out, n), "wb").write(s3.get_object(Bucket=bucket, Key=obj["Key"])["Body"].read())
                lines.append(n + "\\t" + obj["Key"])
        open(os.path.join(out, "manifest.tsv"), "w").write("\\n".join(lines))
        """
}
