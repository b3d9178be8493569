package iristerm.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokensTest {

    @TempDir
    Path dir;

    @Test
    void singleTokenBelongsToTheDefaultIdentity() {
        Tokens tokens = Tokens.single("s3cret-token-abcdefgh");
        assertEquals(Optional.of(Tokens.DEFAULT_IDENTITY), tokens.identityOf("s3cret-token-abcdefgh"));
        assertEquals(Optional.empty(), tokens.identityOf("s3cret-token-abcdefgX"));
        assertEquals(Optional.empty(), tokens.identityOf(""));
        assertEquals(Optional.empty(), tokens.identityOf(null));
    }

    @Test
    void weakOrMalformedTokensAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> Tokens.single("short"));
        assertThrows(IllegalArgumentException.class, () -> Tokens.single("has a space in it ....."));
        assertThrows(IllegalArgumentException.class, () -> Tokens.single("  "));
    }

    @Test
    void tokensFileMapsEachTokenToItsIdentity() throws Exception {
        Path file = dir.resolve("tokens");
        Files.writeString(file, """
                # who may connect
                alice  alice-token-0123456789

                bob\tbob-token-0123456789ab
                alice  alice-second-token-0123
                """);
        Tokens tokens = Tokens.fromFile(file);
        assertEquals(Optional.of("alice"), tokens.identityOf("alice-token-0123456789"));
        assertEquals(Optional.of("alice"), tokens.identityOf("alice-second-token-0123"));
        assertEquals(Optional.of("bob"), tokens.identityOf("bob-token-0123456789ab"));
        assertEquals(Optional.empty(), tokens.identityOf("carol-token-0123456789"));
    }

    @Test
    void tokensFileErrorsNameTheLine() throws Exception {
        Path file = dir.resolve("tokens");
        Files.writeString(file, "alice alice-token-0123456789\nbob\n");
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> Tokens.fromFile(file));
        assertTrue(missing.getMessage().contains("line 2"), missing.getMessage());

        Files.writeString(file, "alice same-token-0123456789\nbob same-token-0123456789\n");
        IllegalArgumentException duplicate = assertThrows(IllegalArgumentException.class, () -> Tokens.fromFile(file));
        assertTrue(duplicate.getMessage().contains("line 2"), duplicate.getMessage());

        Files.writeString(file, "al/ice alice-token-0123456789\n");
        assertThrows(IllegalArgumentException.class, () -> Tokens.fromFile(file));

        Files.writeString(file, "# nothing here\n\n");
        assertThrows(IllegalArgumentException.class, () -> Tokens.fromFile(file));
    }

    @Test
    void generatedTokenIsStoredOwnerOnlyAndReused() throws Exception {
        Path data = dir.resolve("data");
        Tokens.StoredToken first = Tokens.loadOrGenerate(data);
        assertTrue(first.created());
        assertTrue(first.token().matches("[A-Za-z0-9_-]{43}"), first.token());
        assertEquals(data.resolve(Tokens.TOKEN_FILE_NAME), first.file());
        if (Files.getFileStore(data).supportsFileAttributeView("posix")) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(first.file())));
        }
        Tokens.StoredToken second = Tokens.loadOrGenerate(data);
        assertFalse(second.created());
        assertEquals(first.token(), second.token());
        assertEquals(Optional.of(Tokens.DEFAULT_IDENTITY), Tokens.single(second.token()).identityOf(first.token()));
    }

    @Test
    void reusedTokenFileIsRestrictedToItsOwner() throws Exception {
        Path data = dir.resolve("data");
        Tokens.StoredToken stored = Tokens.loadOrGenerate(data);
        if (!Files.getFileStore(data).supportsFileAttributeView("posix")) {
            return;
        }
        Files.setPosixFilePermissions(stored.file(), PosixFilePermissions.fromString("rw-r--r--"));
        Tokens.loadOrGenerate(data);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(stored.file())));
    }
}
