-- Voice profiles (C-07): the project's `voice.yaml` (profile "default") and each
-- `profiles/<name>/voice.yaml`, the profile a recipe binds with `voice: {profile: <name>}`.
CREATE TABLE voice_profiles (
  name TEXT PRIMARY KEY,
  source TEXT NOT NULL,
  profile TEXT NOT NULL
);
