/** The longest path parameter routed; a longer one is 414 in the surface's format. */
export const MAX_PARAM_LENGTH = 512;
