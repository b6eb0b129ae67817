// swift-tools-version:6.1
// RedeemKit, the client SDK, as its own package: Foundation only, so apps on iOS 15+ and macOS 12+ can depend on it
// without the server's dependencies (Hummingbird needs macOS 14).
import PackageDescription

let package = Package(
    name: "RedeemKit",
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "RedeemKit", targets: ["RedeemKit"])
    ],
    targets: [
        .target(name: "RedeemKit", swiftSettings: [.enableUpcomingFeature("ExistentialAny")]),
        .testTarget(name: "RedeemKitTests", dependencies: ["RedeemKit"], swiftSettings: [.enableUpcomingFeature("ExistentialAny")]),
    ]
)
