import RedeemCore

/// What every console page's layout reads: for a signed-in operator the form token, who they are, what their role may
/// do (`may.refund`), and on an app's pages the app switcher and the current tab (`tab.products`).
struct ConsoleChrome: PageModel {
    struct AppChoice: Sendable {
        let id: String
        let name: String
        let selected: Bool
    }

    let appName = "Redeem console"
    let csrf: String?
    let operatorEmail: String?
    let role: String?
    let may: NameSet
    let app: AppChoice?
    let apps: [AppChoice]
    let tab: NameSet

    init(session: ConsoleSession?, apps: [App], app: App?, path: String) {
        csrf = session?.csrf
        operatorEmail = session?.operator.email
        role = session?.operator.role.rawValue
        let role = session?.operator.role
        may = NameSet(names: Set(OperatorAction.allCases.filter { role?.may($0) == true }.map(\.rawValue)))
        self.app = app.map { AppChoice(id: $0.id, name: $0.name, selected: true) }
        self.apps = app == nil ? [] : apps.map { AppChoice(id: $0.id, name: $0.name, selected: $0.id == app?.id) }
        // The team's page is the instance's, not an app's: its own tab in the bar.
        tab = NameSet(names: path.hasPrefix("/console/team") ? ["team"] : app.map { [ConsolePages.tab(path: path, appID: $0.id)] } ?? [])
    }
}

/// The page of secrets a write made, shown once.
struct SecretPage: PageModel {
    struct Value: Sendable {
        let label: String
        let value: String
        let id: String
    }

    let title: String
    let what: String
    let secrets: [Value]
    let hint: String
    let back: String
}

/// A failure inside the console, in an operator's words, with the way back.
struct ConsoleErrorPage: PageModel {
    let title: String
    let message: String
    let back: String
}

/// An option of a `<select>` or a radio group.
struct Choice: Sendable {
    let value: String
    let label: String
    var selected = false
}
