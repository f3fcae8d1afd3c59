package dev.nightshift.agent.notify;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Map;

/**
 * A generic webhook: each chosen event as {@link EventJson}, signed as GitHub signs its own deliveries —
 * {@code X-Nightshift-Signature-256: sha256=<hex HMAC-SHA256 of the body with the secret>} — with the event's type and
 * id in {@code X-Nightshift-Event} and {@code X-Nightshift-Delivery}. The secret is read from its file at every request.
 */
final class Webhook implements Sender {

    private final String name;
    private final NotificationSettings.WebhookTarget target;
    private final JsonPost post;

    /** @param name {@code webhook-1}, {@code webhook-2}, … in the configuration's order */
    Webhook(String name, NotificationSettings.WebhookTarget target, JsonPost post) {
        this.name = name;
        this.target = target;
        this.post = post;
    }

    @Override
    public String destination() {
        return name;
    }

    @Override
    public boolean wants(Notice notice) {
        return notice instanceof Notice.Event e && target.events().contains(e.event().type());
    }

    @Override
    public Outcome send(Notice notice) {
        NotificationEvent event = ((Notice.Event) notice).event();
        byte[] secret;
        try {
            // Stripped as the Git webhook's secret is: a trailing newline from `echo` is not part of it.
            secret = Files.readString(target.secretFile(), StandardCharsets.UTF_8).strip().getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            return new Outcome.Failed(name + ": cannot read the secret file " + target.secretFile());
        }
        byte[] body = EventJson.bytes(event);
        return post.post(name, target.url(), Map.of(Hashes.SIGNATURE_HEADER, Hashes.signature(body, secret),
                "X-Nightshift-Event", event.type().wireName(), "X-Nightshift-Delivery", event.id()), body);
    }
}
