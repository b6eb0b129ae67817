import Foundation
import RedeemCore

/// The offering form's fields, both ways: what an owner typed as `OfferingChanges`, and an offering (stored, or as
/// typed when refused) as the template's values. Packages are rows: `package_N` (a standard identifier, `custom`, or
/// empty for an unused row), `package_custom_N` and `product_N`.
enum ConsoleOfferingForm {
    /// As many rows as an offering may have packages.
    static let maxRows = 50
    /// Empty rows under the filled ones, to add packages without a script.
    static let spareRows = 2

    static let standardLabels = [
        "$rc_weekly": "weekly", "$rc_monthly": "monthly", "$rc_two_month": "2 months", "$rc_three_month": "3 months",
        "$rc_six_month": "6 months", "$rc_annual": "annual", "$rc_lifetime": "lifetime",
    ]

    /// One package row as typed or stored.
    struct Row: Equatable {
        var choice = ""
        var custom = ""
        var productID = ""

        var isEmpty: Bool { choice.isEmpty && custom.isEmpty && productID.isEmpty }

        init(choice: String = "", custom: String = "", productID: String = "") {
            self.choice = choice
            self.custom = custom
            self.productID = productID
        }

        init(_ package: Offering.Package) {
            let standard = Offering.standardPackages.contains(package.id)
            self.init(choice: standard ? package.id : "custom", custom: standard ? "" : package.id, productID: package.productID)
        }
    }

    static func rows(_ form: [String: String]) -> [Row] {
        (0..<maxRows).map { index in
            Row(
                choice: form["package_\(index)"] ?? "", custom: (form["package_custom_\(index)"] ?? "").trimmingCharacters(in: .whitespaces),
                productID: form["product_\(index)"] ?? "")
        }.filter { !$0.isEmpty }
    }

    /// The form as the admin service's changes. Identifiers and products are judged by Core's `Offering.validate`;
    /// here only what the form itself can get wrong: a row with no identifier or no product.
    static func changes(_ form: [String: String]) throws(ValidationError) -> AdminService.OfferingChanges {
        var packages: [Offering.Package] = []
        for (index, row) in rows(form).enumerated() {
            let id = row.choice.isEmpty || row.choice == "custom" ? row.custom : row.choice
            guard !id.isEmpty else {
                throw ValidationError(
                    field: "packages.identifier", reason: "package \(index + 1) needs an identifier: choose one, or type a custom one")
            }
            guard !row.productID.isEmpty else { throw ValidationError(field: "packages.product_id", reason: "choose the product of '\(id)'") }
            packages.append(Offering.Package(id: id, productID: row.productID))
        }
        return AdminService.OfferingChanges(
            description: (form["description"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines), metadataJSON: metadata(form["metadata"]),
            isCurrent: form["is_current"] == "yes", packages: packages)
    }

    /// The metadata as stored: a JSON object, compact with sorted keys (as the admin API stores it); an empty field is
    /// `{}`. Anything else is passed on as typed, for Core to refuse by name.
    static func metadata(_ text: String?) -> String {
        let text = (text ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return "{}" }
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)), case .object = value else { return text }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? text
    }

    /// Stored metadata as the textarea shows it: indented, `{}` left as it is.
    static func pretty(_ metadataJSON: String) -> String {
        guard metadataJSON != "{}", let value = try? JSONDecoder().decode(JSONValue.self, from: Data(metadataJSON.utf8)) else { return metadataJSON }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? metadataJSON
    }

    /// The form's values: the fields, and the rows with their choices (the filled ones, then spare empty ones).
    static func values(
        identifier: String, description: String, metadata: String, isCurrent: Bool, rows filled: [Row], products: [Product], action: String,
        submit: String
    ) -> OfferingFormModel {
        let rows = filled + Array(repeating: Row(), count: max(spareRows, 3 - filled.count))
        let choices =
            [Choice(value: "", label: "— no package —")]
            + Offering.standardPackages.map { Choice(value: $0, label: "\($0) · \(standardLabels[$0] ?? "")") } + [
                Choice(value: "custom", label: "Custom (type it)")
            ]
        return OfferingFormModel(
            identifier: identifier, description: description, metadata: metadata, isCurrent: isCurrent,
            rows: rows.prefix(maxRows).enumerated().map { index, row in
                OfferingFormModel.Row(
                    index: index, number: index + 1, custom: row.custom, noProduct: row.productID.isEmpty,
                    choices: choices.map { Choice(value: $0.value, label: $0.label, selected: $0.value == row.choice) },
                    products: products.map { OfferingFormModel.ProductChoice(id: $0.id, selected: $0.id == row.productID) })
            },
            action: action, submit: submit)
    }

    /// A field's name as the form labels it, then the reason.
    static func describe(_ error: ValidationError) -> String {
        if error.field == "confirm" { return "Tick the box to confirm the deletion." }
        let label =
            switch error.field {
            case "identifier": "Identifier"
            case "description": "Description"
            case "metadata": "Metadata"
            case "packages": "Packages"
            case "packages.identifier": "Package identifier"
            case "packages.product_id": "Package product"
            default: error.field.replacingOccurrences(of: "_", with: " ")
            }
        return "\(label): \(error.reason)."
    }
}

/// Offerings as the console lists them: each package's product, and what each store's SDK will be shown.
enum OfferingsPresenter {
    /// `chosenBy`: how many customers have it as their chosen current offering.
    static func offering(_ offering: Offering, products: [String: Product], chosenBy: Int) -> OfferingRow {
        // Each store's SDK is shown the packages whose product it has a name for (`OfferingsDocument.storeKey`, the
        // offerings answer's own rule); an offering left with none is not shown there at all.
        let packages = offering.packages.map { package in
            let product = products[package.productID]
            return OfferingRow.Package(
                id: package.id, product: package.productID, appStore: product.flatMap { OfferingsDocument.storeKey($0, on: .appStore) },
                playStore: product.flatMap { OfferingsDocument.storeKey($0, on: .playStore) })
        }
        let onIOS = packages.filter { $0.appStore != nil }.count
        let onAndroid = packages.filter { $0.playStore != nil }.count
        return OfferingRow(
            id: offering.id, isCurrent: offering.isCurrent, packages: packages,
            stores: [
                seen("iOS", onIOS, of: packages.count, article: "an", id: "App Store product ID"),
                seen("Android", onAndroid, of: packages.count, article: "a", id: "Google Play product ID"),
                packages.isEmpty ? "The web: not offered (no packages)." : "The web: all \(packages.count), by Redeem's product IDs.",
            ],
            // Absent rather than empty: the template shows them only when there are some.
            description: offering.description.isEmpty ? nil : offering.description,
            metadata: offering.metadataJSON == "{}" ? nil : offering.metadataJSON,
            chosenFor: chosenBy == 0 ? nil : "Chosen for \(ConsolePresenter.count(chosenBy, "customer")) as their current offering.")
    }

    /// What one store is shown; `id` names the identifier its products need ("App Store product ID").
    static func seen(_ platform: String, _ count: Int, of total: Int, article: String, id: String) -> String {
        if count == 0 { return "\(platform): not offered (no package's product has \(article) \(id))." }
        if count == total { return "\(platform): all \(total) package\(total == 1 ? "" : "s")." }
        return "\(platform): \(count) of \(total) packages (the others' products have no \(id))."
    }
}
