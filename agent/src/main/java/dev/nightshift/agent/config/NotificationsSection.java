package dev.nightshift.agent.config;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import dev.nightshift.agent.notify.EventType;
import dev.nightshift.agent.notify.Forge;
import dev.nightshift.agent.notify.NotificationSettings;
import dev.nightshift.agent.provider.http.MachineApiEndpoint;
import dev.nightshift.spec.yaml.Fields;
import dev.nightshift.spec.yaml.YamlNode;

/**
 * Reads {@code notifications:} ({@link NotificationSettings}), each problem at its {@code file:line:column} with the
 * field's path: one forge under {@code commitStatus}, each with {@code apiUrl}, its repository or project and
 * {@code tokenFile}; webhooks with {@code url}, {@code secretFile} and {@code events}; Slack with {@code webhookUrlFile}
 * and {@code events}; {@code announce}, {@code statusUrl}, {@code timeout}, {@code queueSize}. Secrets only as files.
 */
final class NotificationsSection {

    private static final String EVENTS_EXAMPLE = "[all] or [rollout.started, pool.failed]";

    private NotificationsSection() {
    }

    static NotificationSettings read(Fields n, Fields commitStatus, Fields slack) {
        Optional<NotificationSettings.CommitStatusTarget> forge = Optional.empty();
        for (Forge f : Forge.values()) {
            Fields section = AgentConfigLoader.section(commitStatus, f.label());
            if (!commitStatus.written(f.label())) {
                continue;
            }
            Optional<NotificationSettings.CommitStatusTarget> read = forge(f, section);
            section.finish();
            if (forge.isPresent() && read.isPresent()) {
                commitStatus.error(f.label(), commitStatus.take(f.label()).orElseThrow(), "give one forge under commitStatus, not "
                        + forge.get().forge().label() + " and " + f.label());
            } else if (forge.isEmpty()) {
                forge = read;
            }
        }
        if (n.written("commitStatus") && commitStatus.keys().stream().noneMatch(k -> Forge.valueOfLabel(k).isPresent())) {
            commitStatus.error("github", commitStatus.where(), "one forge is required under commitStatus: github, gitlab or gitea");
        }
        List<NotificationSettings.WebhookTarget> webhooks = new ArrayList<>(n.listOfMaps("webhooks", NotificationsSection::webhook)
                .stream().flatMap(Optional::stream).toList());
        Optional<NotificationSettings.SlackTarget> slackTarget = n.written("slack") ? slack(slack) : Optional.empty();
        Optional<Duration> announce = AgentConfigLoader.duration(n, "announce");
        Optional<URI> statusUrl = n.string("statusUrl").flatMap(text -> url(n, "statusUrl", text));
        Duration timeout = AgentConfigLoader.duration(n, "timeout").filter(v -> AgentConfigLoader.atLeast(n, "timeout", v, Duration.ofSeconds(1)))
                .orElse(NotificationSettings.DEFAULT_TIMEOUT);
        int queueSize = n.integer("queueSize", 1, 100_000, "a whole number from 1").orElse(NotificationSettings.DEFAULT_QUEUE_SIZE);
        return new NotificationSettings(forge, webhooks, slackTarget, announce, statusUrl, timeout, queueSize);
    }

    private static Optional<NotificationSettings.CommitStatusTarget> forge(Forge forge, Fields f) {
        Optional<URI> apiUrl = f.string("apiUrl").flatMap(text -> url(f, "apiUrl", text)).filter(u -> {
            // The token goes with every request: never in clear over the network.
            Optional<String> inClear = MachineApiEndpoint.tokenInClear(u);
            inClear.ifPresent(why -> f.error("apiUrl", f.take("apiUrl").orElseThrow(), "is plain http:// to a host that is not"
                    + " loopback: the token would cross the network in clear; use https://"));
            return inClear.isEmpty();
        });
        required(f, "apiUrl", forge == Forge.GITHUB ? "https://api.github.com" : forge == Forge.GITLAB ? "https://gitlab.com/api/v4"
                : "https://gitea.example.com/api/v1");
        String repoKey = forge == Forge.GITLAB ? "projectId" : "repository";
        Optional<String> repository = f.string(repoKey).filter(r -> {
            boolean ok = forge == Forge.GITLAB ? r.matches("[^\\s]+") : r.matches("[^/\\s]+/[^/\\s]+");
            if (!ok) {
                f.error(repoKey, f.take(repoKey).orElseThrow(), forge == Forge.GITLAB
                        ? "must be the project's id or its path such as group/project, got \"" + r + "\""
                        : "must be owner/name, got \"" + r + "\"");
            }
            return ok;
        });
        required(f, repoKey, forge == Forge.GITLAB ? "12345 or group/project" : "org/fleet-specs");
        Optional<Path> tokenFile = f.string("tokenFile").map(Path::of);
        required(f, "tokenFile", "/var/run/secrets/" + forge.label() + "/token");
        if (apiUrl.isEmpty() || repository.isEmpty() || tokenFile.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new NotificationSettings.CommitStatusTarget(forge, apiUrl.get(), repository.get(), tokenFile.get()));
    }

    private static Optional<NotificationSettings.WebhookTarget> webhook(Fields f) {
        Optional<URI> url = f.string("url").flatMap(text -> url(f, "url", text));
        required(f, "url", "https://hooks.example.com/nightshift");
        Optional<Path> secretFile = f.string("secretFile").map(Path::of);
        required(f, "secretFile", "/var/run/secrets/hook/secret (every delivery is signed with it)");
        Set<EventType> events = events(f);
        if (url.isEmpty() || secretFile.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new NotificationSettings.WebhookTarget(url.get(), secretFile.get(), events));
    }

    private static Optional<NotificationSettings.SlackTarget> slack(Fields f) {
        Optional<Path> file = f.string("webhookUrlFile").map(Path::of);
        required(f, "webhookUrlFile", "/var/run/secrets/slack/url (the incoming webhook's URL is a secret)");
        Set<EventType> events = events(f);
        return file.map(p -> new NotificationSettings.SlackTarget(p, events));
    }

    /** {@code events}: {@code all} or event types; every type when not written. */
    private static Set<EventType> events(Fields f) {
        Optional<List<String>> names = f.strings("events", EVENTS_EXAMPLE);
        if (names.isEmpty()) {
            return EnumSet.allOf(EventType.class);
        }
        Set<EventType> events = EnumSet.noneOf(EventType.class);
        YamlNode at = f.take("events").orElseThrow();
        if (names.get().isEmpty()) {
            f.error("events", at, "must name at least one event, such as " + EVENTS_EXAMPLE);
        }
        for (String name : names.get()) {
            if (name.equals(EventType.ALL)) {
                events.addAll(EnumSet.allOf(EventType.class));
            } else {
                EventType.of(name).ifPresentOrElse(events::add, () -> f.error("events", at, "unknown event \"" + name
                        + "\"; one of all, " + String.join(", ", EventType.wireNames())));
            }
        }
        return events;
    }

    private static void required(Fields f, String key, String example) {
        if (f.take(key).isEmpty()) {
            f.error(key, f.where(), "is required, such as " + example);
        }
    }

    /** An http(s) URL with a host, without user info (a secret goes in a file) or a query. */
    private static Optional<URI> url(Fields f, String key, String text) {
        Optional<URI> parsed = AgentConfigLoader.machineApiUrl(text);
        if (parsed.isEmpty()) {
            // It may carry a password or a token: never repeat it.
            f.error(key, f.take(key).orElseThrow(), text.contains("@") || text.contains("?")
                    ? "must be an http:// or https:// URL without user info or query: secrets go in files"
                    : "must be an http:// or https:// URL with a host, got \"" + text + "\"");
        }
        return parsed;
    }
}
