/** The version every service reports (on `/`, `/v1/health`, `/api/v1/health`). Kept equal to package.json's. */
export const SERVICE_VERSION = '0.1.0';
