package dev.nightshift.agent.git;

import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.IThrowableProxy;

/**
 * {@code %scrubbedEx} in {@code logback.xml}: a logged exception's stack trace, causes included, with
 * every message {@linkplain CredentialScrubber scrubbed}, as {@link ScrubbedMessageConverter} does for
 * the line itself.
 */
public final class ScrubbedThrowableConverter extends ThrowableProxyConverter {

    @Override
    protected String throwableProxyToString(IThrowableProxy proxy) {
        return CredentialScrubber.scrub(super.throwableProxyToString(proxy));
    }
}
