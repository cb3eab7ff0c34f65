import Foundation
import NIOSSL
import PostgresNIO

/// Where a sync goes: a `postgresql://USER@HOST[:PORT]/DB[?sslmode=…&sslrootcert=…]` URL, in the
/// form libpq reads (PostgreSQL documentation, "Connection URIs" and "SSL Support"), without a
/// password: that comes from ``PasswordLookup``.
package struct SyncTarget: Sendable, Equatable {
    /// libpq's `sslmode` values this client honours.
    package enum TLSMode: String, Sendable, CaseIterable {
        /// No TLS.
        case disable
        /// TLS when the server offers it, certificate not checked.
        case prefer
        /// TLS or no connection; the certificate is not checked (libpq's `require` without a root
        /// certificate).
        case require
        /// TLS; the certificate must be signed by the root in `sslrootcert`.
        case verifyCA = "verify-ca"
        /// TLS; the certificate must be signed by the root in `sslrootcert` and name the host.
        case verifyFull = "verify-full"
    }

    package var user: String
    package var host: String
    package var port: Int
    package var database: String
    package var tlsMode: TLSMode
    /// The root certificate (PEM) for `verify-ca`/`verify-full`: `sslrootcert`, else
    /// `~/.postgresql/root.crt` as libpq does.
    package var rootCertificate: String?

    /// The address without credentials, for messages.
    package var display: String { "\(host):\(port)/\(database)" }

    /// Reads `url`. The user defaults to `PGUSER`, then the login name; the port to 5432; the
    /// TLS mode to `PGSSLMODE`, then `prefer`, as in libpq.
    ///
    /// - Throws: ``SyncError/invalidURL(_:reason:)``, ``SyncError/passwordInURL``.
    package init(url: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(SyncError) {
        guard let components = URLComponents(string: url),
            let scheme = components.scheme, ["postgresql", "postgres"].contains(scheme)
        else { throw .invalidURL(url, reason: "it does not start with postgresql://") }
        guard components.password == nil else { throw .passwordInURL }
        guard let host = components.host, !host.isEmpty else { throw .invalidURL(url, reason: "it names no host") }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw .invalidURL(url, reason: "it names no database after the host (…/DATABASE)")
        }
        var user = components.user ?? environment["PGUSER"] ?? ProcessInfo.processInfo.userName
        // libpq's default: PGSSLMODE, else prefer.
        guard var mode = TLSMode(rawValue: environment["PGSSLMODE"] ?? "prefer") else {
            throw .invalidURL(
                url,
                reason: "PGSSLMODE \"\(environment["PGSSLMODE"] ?? "")\" is not one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var rootCertificate: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "password":
                throw .passwordInURL
            case "user":
                user = item.value ?? ""
            case "application_name", "fallback_application_name", "connect_timeout":
                // Naming and patience only: they change nothing that is sent.
                continue
            case "sslmode":
                guard let value = item.value, let parsed = TLSMode(rawValue: value) else {
                    let known = TLSMode.allCases.map(\.rawValue).joined(separator: ", ")
                    throw .invalidURL(url, reason: "sslmode \"\(item.value ?? "")\" is not one of \(known)")
                }
                mode = parsed
            case "sslrootcert":
                rootCertificate = item.value
            default:
                throw .invalidURL(
                    url,
                    reason: "the parameter \"\(item.name)\" is not supported (sslmode, sslrootcert, user, application_name and connect_timeout are)")
            }
        }
        guard !user.isEmpty else { throw .invalidURL(url, reason: "it names no user (USER@HOST)") }
        if rootCertificate == nil, mode == .verifyCA || mode == .verifyFull {
            let home = environment["HOME"] ?? NSHomeDirectory()
            let standard = (home as NSString).appendingPathComponent(".postgresql/root.crt")
            guard FileManager.default.fileExists(atPath: standard) else {
                throw .invalidURL(
                    url, reason: "sslmode=\(mode.rawValue) needs the server's root certificate: add sslrootcert=PATH or put it in \(standard)")
            }
            rootCertificate = standard
        }
        self.user = user
        self.host = host
        self.port = components.port ?? 5432
        self.database = database
        self.tlsMode = mode
        self.rootCertificate = rootCertificate
    }

    /// The TLS setting of the connection.
    func tls() throws(SyncError) -> PostgresConnection.Configuration.TLS {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch tlsMode {
        case .disable: return .disable
        case .prefer, .require: configuration.certificateVerification = .none
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .verifyFull: configuration.certificateVerification = .fullVerification
        }
        if let rootCertificate {
            do {
                configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(rootCertificate))
            } catch {
                throw .tls("the root certificate \(rootCertificate) cannot be read as PEM: \(error)")
            }
        }
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw .tls("\(error)")
        }
        return tlsMode == .prefer ? .prefer(context) : .require(context)
    }
}
