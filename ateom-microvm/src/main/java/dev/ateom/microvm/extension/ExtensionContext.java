package dev.ateom.microvm.extension;

import dev.ateom.microvm.config.DaemonConfig;
import dev.ateom.microvm.http.ApiToken;
import dev.ateom.microvm.sandbox.SandboxManager;
import dev.ateom.microvm.template.TemplateService;

/** What a {@link DaemonExtension} gets: the daemon's settings, its API token, its sandboxes and its templates. */
public record ExtensionContext(DaemonConfig config, ApiToken token, SandboxManager sandboxes, TemplateService templates) {}
