package dev.nightshift.agent.git;

import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;

/** Judges one commit's own signature (a tag's signature never stands in for it). */
interface SignatureCheck {

    SignatureVerdict check(Repository repository, RevCommit commit);

    static SignatureCheck of(CommitVerification verification) {
        return switch (verification.mode()) {
            case SSH -> new SshSignatures(verification.allowedSignersFile().orElseThrow());
            case GPG -> new GpgSignatures(verification.publicKeysFile().orElseThrow(), verification.fingerprints());
        };
    }
}
