"""hoard as its own OAuth 2.1 authorization server: the SDK's provider
interface, the owner's consent page, and the routes the HTTP guard lets through."""
