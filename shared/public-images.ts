// Where custom emoji and uploaded avatars are served: Zulip's layout of its avatar bucket, under
// /user_avatars/ (the gateway's public image route). The users service names these paths in
// emoji and user objects; the uploads service stores the images under them.
//
// Decision: as Zulip (nginx serves /user_avatars/ without authentication), these images are
// public: the gateway serves them to anyone who has the URL. Each URL carries a random part of
// 80 bits (Zulip uses a salted hash), so they cannot be listed or guessed; emoji and avatars are
// shown to the whole organization anyway, and clients load them in <img> tags, which send no
// API credentials.

/** The URL prefix of every public image. */
export const PUBLIC_IMAGES_PATH = "/user_avatars";

/** Zulip's RealmEmoji.PATH_ID_TEMPLATE: an emoji's (resized) image. */
export const emojiPath = (realmId: number, fileName: string) => `${realmId}/emoji/images/${fileName}`;

/** Zulip's RealmEmoji.STILL_PATH_ID_TEMPLATE: an animated emoji's still version (PNG). */
export const emojiStillPath = (realmId: number, fileName: string) => `${realmId}/emoji/images/still/${fileName.replace(/\.[^.]*$/, "")}.png`;

/** An uploaded avatar's images: `<base>.png` (100×100), `<base>-medium.png` (500×500), `<base>.original`. */
export const avatarImagePaths = (base: string) => ({ small: `${base}.png`, medium: `${base}-medium.png`, original: `${base}.original` });

/** A public image's URL. */
export const publicImageUrl = (path: string) => `${PUBLIC_IMAGES_PATH}/${path}`;
