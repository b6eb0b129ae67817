// swift-tools-version:6.1
// Builds apple/swift-openapi-generator for scripts/openapi-generate.sh. Kept out of the main package so a normal build
// does not compile the generator; the generated code is committed instead.
import PackageDescription

let package = Package(
    name: "openapi-generator",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator.git", exact: "1.14.3")],
    targets: []
)
