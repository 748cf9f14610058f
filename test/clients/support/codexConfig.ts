/**
 * Our part of Codex's config.toml for the real-client tests: the fake model provider on loopback,
 * and Codex's own traffic (update checks, analytics, plugin and app catalogs) off. `topLevel` adds
 * keys before the first table (TOML puts a key after a table header into that table).
 */
export const codexBaseConfig = (modelUrl: string, topLevel: ReadonlyArray<string> = []): string =>
  [
    `model = "fake-model"`,
    `model_provider = "fake"`,
    `check_for_update_on_startup = false`,
    ...topLevel,
    ``,
    `[analytics]`,
    `enabled = false`,
    ``,
    // Plugin and app catalogs sync from the network at start-up (GitHub, chatgpt.com); not wanted here.
    `[features]`,
    `plugins = false`,
    `remote_plugin = false`,
    `apps = false`,
    `in_app_updates = false`,
    ``,
    `[model_providers.fake]`,
    `name = "fake model on loopback"`,
    `base_url = "${modelUrl}/v1"`,
    `wire_api = "responses"`,
    `env_key = "FAKE_OPENAI_API_KEY"`,
    ``
  ].join("\n")
