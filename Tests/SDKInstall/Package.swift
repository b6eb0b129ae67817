// swift-tools-version:6.1
// An app's view of this repository: it depends on the repository (here by path, in Xcode by its URL) and uses only
// RedeemKit. scripts/check-sdk-install.sh builds it and checks that nothing of the server was built.
import PackageDescription

let package = Package(
    name: "SDKInstall",
    platforms: [.iOS(.v15), .macOS(.v15)],
    dependencies: [.package(name: "redeem", path: "../..")],
    targets: [
        .executableTarget(name: "SDKInstall", dependencies: [.product(name: "RedeemKit", package: "redeem")])
    ]
)
