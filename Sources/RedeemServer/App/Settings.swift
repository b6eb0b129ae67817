import Configuration
import Foundation
import Synchronization

/// Where settings come from, in order: flags, then the environment, then a secrets directory's files. One
/// `ConfigReader` (swift-configuration) layers them, so every command resolves a setting the same way.
public enum Settings {
    /// The secrets directory's files, read once when the process starts (`loadSecretFiles`).
    private static let secretFiles = Mutex<InMemoryProvider?>(nil)

    public static let secretsDirectory = "REDEEM_SECRETS_DIR"
    public static var loadedSecretFiles: InMemoryProvider? { secretFiles.withLock { $0 } }

    /// Reads the secrets directory, if there is one: `REDEEM_SECRETS_DIR` (a container's mounted secrets, say
    /// `/run/secrets`), else `CREDENTIALS_DIRECTORY`, which systemd sets for a unit's `LoadCredential=`. So secrets need
    /// not be in the environment, which child processes inherit.
    public static func loadSecretFiles(environment: [String: String] = ProcessInfo.processInfo.environment) throws(ConfigurationError) {
        let files = try secretFiles(environment: environment)
        secretFiles.withLock { $0 = files }
    }

    /// Each file is one setting, named as its flag without the dashes (`stripe-secret-key`); its contents, trimmed, are
    /// the value, marked secret. Hidden files and directories are skipped; links are followed, as Kubernetes mounts
    /// secrets as links (swift-configuration's `DirectoryFilesProvider` skips links, so it is not used here).
    static func secretFiles(environment: [String: String]) throws(ConfigurationError) -> InMemoryProvider? {
        let named = [secretsDirectory, "CREDENTIALS_DIRECTORY"].compactMap { name in environment[name].map { (name, $0) } }
        guard let (name, directory) = named.first(where: { !$0.1.isEmpty }) else { return nil }
        let manager = FileManager.default
        guard let files = try? manager.contentsOfDirectory(atPath: directory) else {
            throw ConfigurationError(setting: name, reason: "'\(directory)' is not a directory this process can read")
        }
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for file in files where !file.hasPrefix(".") {
            let path = URL(fileURLWithPath: directory).appendingPathComponent(file).resolvingSymlinksInPath().path
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            guard let data = manager.contents(atPath: path) else {
                throw ConfigurationError(setting: name, reason: "'\(file)' in '\(directory)' cannot be read by this process")
            }
            let value = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            values[AbsoluteConfigKey(file.split(separator: "-").map(String.init))] = ConfigValue(.string(value), isSecret: true)
        }
        return InMemoryProvider(name: "secrets directory", values: values)
    }

    /// `flags` are the values given on the command line, by setting; `environment` is the process's unless a test
    /// passes its own, and `files` the secrets directory's. `reporter` hears every lookup (as swift-configuration's
    /// `CONFIG_ACCESS_LOG_FILE` does), secrets redacted.
    public static func reader(
        flags: [Setting: String?] = [:], environment: [String: String] = ProcessInfo.processInfo.environment,
        files: InMemoryProvider? = loadedSecretFiles, reporter: (any AccessReporter)? = nil
    ) -> ConfigReader {
        var given: [AbsoluteConfigKey: ConfigValue] = [:]
        for (setting, value) in flags {
            guard let value else { continue }
            given[AbsoluteConfigKey(setting.key)] = ConfigValue(.string(value), isSecret: setting.isSecret)
        }
        let variables = EnvironmentVariablesProvider(
            environmentVariables: environment, secretsSpecifier: .specific(Set(Setting.secrets.map(\.environmentName)))
        )
        // Every setting is REDEEM_-prefixed except OpenTelemetry's standard variable.
        let prefixed = variables.mapKeys { key in
            key.components.first == "otel" ? key : key.prepending(["redeem"])
        }
        var providers: [any ConfigProvider] = [InMemoryProvider(name: "flags", values: given), prefixed]
        if let files { providers.append(files) }
        return ConfigReader(providers: providers, accessReporter: reporter)
    }
}
