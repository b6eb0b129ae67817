// redeem-example: a command-line "app" that redeems a web purchase link with RedeemKit.
// See RedeemExample.swift for the options and docs/redeemkit.md ("Try it on Linux").

/// Called from an async function on purpose: in top-level code, overload resolution picks
/// ArgumentParser's synchronous `main()`, which refuses async commands.
func runExample() async {
    await RedeemExample.main()
}

await runExample()
