/// The glucobridge release this binary is. The header line of every rules and unit file carries
/// it too (`# glucobridge 0.1.0 …`), so `doctor` can tell which release installed a file.
package enum GlucoBridgeVersion {
    package static let current = "0.1.0"
}
