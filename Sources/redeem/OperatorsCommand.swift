import ArgumentParser
import Foundation
import RedeemCore
import RedeemServer
import RedeemStore

/// `redeem operators`: the people who sign in to the console (`/console`). Local database only: an operator is an
/// instance's own account, made by whoever runs the server.
struct Operators: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Console operators: create, list, disable, enable and reset passwords.",
        subcommands: [Create.self, Invite.self, List.self, Disable.self, Enable.self, ResetPassword.self, ResetTwoFactor.self]
    )

    static let actor = CLI.actor

    /// The password from standard input (one line; the newline dropped), so it never shows in `ps` or shell history.
    static func readPassword() throws -> String {
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw ValidationError("Give the password on standard input, e.g. `printf '%s' \"$PASSWORD\" | redeem operators create …`.")
        }
        return line
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an operator; the password is read from standard input.")
        @Option(help: "The operator's e-mail address (their sign-in name).")
        var email: String
        @Option(help: "owner (everything) or support (look up, send links, re-send e-mails, grant).")
        var role: OperatorRole
        @Flag(help: "Read the password from standard input (required).")
        var passwordStdin = false
        @OptionGroup var database: DatabaseOptions
        @Flag var json = false

        func validate() throws {
            guard passwordStdin else { throw ValidationError("--password-stdin is required: passwords are never given as flags.") }
        }

        func run() async throws {
            let password = try Operators.readPassword()
            let op = try await database.withStore { store in
                try await OperatorService(store: store).create(email: email, role: role, password: password, actor: Operators.actor)
            }
            if json { return try Output.json(op) }
            print("Created operator \(op.email) (\(op.role.rawValue)). Sign in at /console.")
        }
    }

    /// For headless set-ups: the invitation's link is printed to hand over, not e-mailed.
    struct Invite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Invite an operator: prints a one-time link (7 days) where they choose their name and password.")
        @Argument(help: "The invitee's e-mail address (their sign-in name).")
        var email: String
        @Option(help: "owner (everything) or support (look up, send links, re-send e-mails, grant).")
        var role: OperatorRole
        @Option(help: "The server's public base URL (env \(Setting.publicURL.environmentName)), which the link starts with.")
        var publicURL: String?
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let base = try PublicURL.resolve(publicURL)
            let link = try await database.withStore { store in
                try await TeamService.invite(store: store, email: email, role: role, publicURL: base, actor: Operators.actor)
            }
            print("Invited \(Operator.normalize(email: email)) as \(role.rawValue). Give them this link (it works once, for 7 days):")
            print(link)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List operators.")
        @OptionGroup var database: DatabaseOptions
        @Flag var json = false

        func run() async throws {
            let operators = try await database.withStore { try await OperatorService(store: $0).list() }
            if json { return try Output.json(operators) }
            if operators.isEmpty { print("No operators. Create one with `redeem operators create`.") }
            for op in operators {
                let twoFactor = op.twoFactorEnabledAt == nil ? "password only" : "two-factor"
                print("\(op.email)\t\(op.role.rawValue)\t\(op.disabledAt == nil ? "active" : "disabled")\t\(twoFactor)")
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable an operator and end their sessions.")
        @Option var email: String
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let op = try await database.withStore { try await OperatorService(store: $0).setDisabled(email: email, true, actor: Operators.actor) }
            print("Disabled \(op.email); their sessions have ended.")
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable a disabled operator again.")
        @Option var email: String
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let op = try await database.withStore { try await OperatorService(store: $0).setDisabled(email: email, false, actor: Operators.actor) }
            print("Enabled \(op.email).")
        }
    }

    struct ResetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-password", abstract: "Set a new password (from standard input); ends the operator's sessions.")
        @Option var email: String
        @Flag(help: "Read the password from standard input (required).")
        var passwordStdin = false
        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            guard passwordStdin else { throw ValidationError("--password-stdin is required: passwords are never given as flags.") }
        }

        func run() async throws {
            let password = try Operators.readPassword()
            try await database.withStore {
                try await OperatorService(store: $0).resetPassword(email: email, password: password, actor: Operators.actor)
            }
            print("New password set for \(email); their sessions have ended.")
        }
    }
}

extension Operators {
    struct ResetTwoFactor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-two-factor", abstract: "Turn an operator's two-factor sign-in off (a lost phone); they can enrol again.")
        @Option var email: String
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await database.withStore { try await OperatorService(store: $0).resetTwoFactor(email: email, actor: Operators.actor) }
            print("Two-factor sign-in is off for \(email).")
        }
    }
}

extension OperatorRole: ExpressibleByArgument {}
