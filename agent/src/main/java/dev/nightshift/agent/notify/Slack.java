package dev.nightshift.agent.notify;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A Slack incoming webhook: {@code POST} of {@code {"text": …}}, the event's readable sentence ({@link SlackText}).
 * The webhook's URL is its secret: read from its file at every request, and never written anywhere.
 */
final class Slack implements Sender {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final NotificationSettings.SlackTarget target;
    private final JsonPost post;

    Slack(NotificationSettings.SlackTarget target, JsonPost post) {
        this.target = target;
        this.post = post;
    }

    @Override
    public String destination() {
        return "slack";
    }

    @Override
    public boolean wants(Notice notice) {
        return notice instanceof Notice.Event e && target.events().contains(e.event().type());
    }

    @Override
    public Outcome send(Notice notice) {
        URI url;
        try {
            url = new URI(Files.readString(target.webhookUrlFile(), StandardCharsets.UTF_8).strip());
        } catch (IOException | URISyntaxException e) {
            return new Outcome.Failed("slack: cannot read a URL from the file " + target.webhookUrlFile());
        }
        byte[] body = JSON.createObjectNode().put("text", SlackText.of(((Notice.Event) notice).event())).toString()
                .getBytes(StandardCharsets.UTF_8);
        return post.post("slack", url, Map.of(), body);
    }
}
