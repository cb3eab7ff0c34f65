import Drivers

/// Keys made up for the tests (not a reader's): the simulated Libre 2 and 3 readers and the
/// driver share them.
package enum FreeStyleTestKeys {
    package static let keys = FreeStyleKeys(
        authorizationEncryption: SpeckKey(hex: "0x00112233445566778899aabbccddeeff")!,
        authorizationMAC: SpeckKey(hex: "0x0f1e2d3c4b5a69788796a5b4c3d2e1f0")!,
        sessionEncryption: SpeckKey(hex: "0x13579bdf02468ace13579bdf02468ace")!,
        sessionMAC: SpeckKey(hex: "0xfedcba98765432100123456789abcdef")!, origin: "the tests")
}
