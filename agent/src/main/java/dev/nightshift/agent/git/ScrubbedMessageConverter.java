package dev.nightshift.agent.git;

import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * {@code %scrubbedMsg} in {@code logback.xml}: each log line's message {@linkplain CredentialScrubber
 * scrubbed}. The agent's own lines never hold a secret, but JGit logs on its own, and a message it or a
 * server wrote may repeat a URL with a token or an {@code Authorization} header.
 */
public final class ScrubbedMessageConverter extends MessageConverter {

    @Override
    public String convert(ILoggingEvent event) {
        return CredentialScrubber.scrub(super.convert(event));
    }
}
