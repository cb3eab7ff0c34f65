/// Where the keys a user supplies for a device (FreeStyle Libre 2 and 3, Huami bands) are looked
/// for, in order: the file the family's environment variable names, when it is set (and then
/// only it); else `$XDG_CONFIG_HOME/glucobridge/NAME` (`~/.config/glucobridge/NAME` without it);
/// then `/etc/glucobridge/NAME`.
package enum KeyFileLocations {
    package static func paths(fileName: String, environmentVariable: String, environment: [String: String]) -> [String] {
        if let explicit = environment[environmentVariable], !explicit.isEmpty { return [explicit] }
        var files: [String] = []
        if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty {
            files.append("\(config)/glucobridge/\(fileName)")
        } else if let home = environment["HOME"], !home.isEmpty {
            files.append("\(home)/.config/glucobridge/\(fileName)")
        }
        files.append("/etc/glucobridge/\(fileName)")
        return files
    }
}
