import Mustache

/// A page's values, typed: its template reads them by property name (Mustache reflects on them). Pages never pass a
/// dictionary, so a misspelt or mistyped value is a compile error, not a blank on the page.
protocol PageModel: Sendable {}

/// A page's values read from several models in turn: the page's own first, then its layout's (the branding, the
/// console's chrome), then the nonce.
struct LayeredValues: MustacheParent, Sendable {
    let layers: [any PageModel]

    func child(named name: String) -> Any? {
        for layer in layers {
            if let value = Self.value(named: name, in: layer) { return value }
        }
        return nil
    }

    /// A property's value, or nil when the model has none or it is nil (so a lower layer may answer).
    static func value(named name: String, in model: Any) -> Any? {
        if let parent = model as? any MustacheParent { return parent.child(named: name) }
        guard let child = Mirror(reflecting: model).children.first(where: { $0.label == name }) else { return nil }
        guard let optional = child.value as? any OptionalValue else { return child.value }
        return optional.wrappedValue
    }
}

/// An optional seen through `Any`.
private protocol OptionalValue {
    var wrappedValue: Any? { get }
}

extension Optional: OptionalValue {
    fileprivate var wrappedValue: Any? { self.map { $0 as Any } }
}

/// The values a set of flags reads by name: `{{#may.refund}}` in a template is `names.contains("refund")`.
struct NameSet: MustacheParent, Sendable {
    let names: Set<String>

    func child(named name: String) -> Any? { names.contains(name) ? true : nil }
}

/// A form's fields by their HTML names (`display_name`), as stored or as typed when refused; `open` when it was
/// refused, so the form shows again unfolded.
struct FormFields: MustacheParent, Sendable {
    let values: [String: String]
    var open = false

    func child(named name: String) -> Any? { name == "open" ? (open ? true : nil) : values[name] }
}

/// The nonce the page's `<style>` and `<script>` tags carry for its Content-Security-Policy.
struct PageNonce: PageModel {
    let cspNonce: String
}

/// A page whose form fields sit at the top of its template (`{{icon_url}}`) beside the page's own values, which
/// come first.
struct WithFields<Model: PageModel>: PageModel, MustacheParent {
    let model: Model
    let fields: FormFields

    func child(named name: String) -> Any? { LayeredValues.value(named: name, in: model) ?? fields.child(named: name) }
}
